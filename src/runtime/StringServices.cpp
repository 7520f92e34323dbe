#include "StringServices.h"

#include "DType.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cuvil::runtime {

struct StringChunk {
  StringChunk *next;
  size_t size, used;
  char *bytes() { return reinterpret_cast<char *>(this + 1); }
};

struct StringStorage {
  cuvil_string_services services;
  StringChunk *chunks; // the newest first
};

namespace {

constexpr size_t kFirstChunkBytes = 64 * 1024;

char *allocate(void *context, int64_t bytes) {
  auto *storage = static_cast<StringStorage *>(context);
  if (bytes < 0 || bytes > (int64_t(1) << 48)) // no run makes 256 TiB of text
    return nullptr;
  size_t size = (size_t(bytes) + 15) & ~size_t(15);
  StringChunk *head = storage->chunks;
  if (head && head->size - head->used >= size) {
    char *result = head->bytes() + head->used;
    head->used += size;
    return result;
  }
  size_t chunkBytes = head ? 2 * head->size : kFirstChunkBytes;
  if (chunkBytes < size)
    chunkBytes = size;
  auto *chunk = static_cast<StringChunk *>(std::malloc(sizeof(StringChunk) + chunkBytes));
  if (!chunk)
    return nullptr;
  *chunk = StringChunk{head, chunkBytes, size};
  storage->chunks = chunk;
  return chunk->bytes();
}

void freeChunks(StringChunk *chunk) {
  while (chunk) {
    StringChunk *next = chunk->next;
    std::free(chunk);
    chunk = next;
  }
}

// A 16-bit float's bits from a float, rounded to nearest even.
uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint32_t sign = (bits >> 16) & 0x8000, magnitude = bits & 0x7FFFFFFF;
  if (magnitude > 0x7F800000) // NaN
    return uint16_t(sign | 0x7E00);
  if (magnitude >= 0x477FF000) // rounds past the largest half
    return uint16_t(sign | 0x7C00);
  if (magnitude < 0x38800000) { // below the smallest normal half: subnormal or zero
    float scaled = std::fabs(value) * 16777216.0f; // 2^24: units of the smallest subnormal
    return uint16_t(sign | uint32_t(std::nearbyint(scaled)));
  }
  uint32_t rounded = magnitude + 0xFFF + ((magnitude >> 13) & 1);
  return uint16_t(sign | ((rounded - 0x38000000) >> 13));
}

uint16_t floatToBfloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7FFFFFFF) > 0x7F800000)
    return uint16_t((bits >> 16) | 0x40);
  return uint16_t((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

// The bits of text read back as a value of the floating type dtype.
uint64_t readBack(int32_t dtype, const char *text) {
  uint64_t bits = 0;
  if (dtype == CUVIL_DTYPE_F64) {
    double value = std::strtod(text, nullptr);
    std::memcpy(&bits, &value, 8);
    return bits;
  }
  float value = std::strtof(text, nullptr);
  if (dtype == CUVIL_DTYPE_F16)
    return floatToHalf(value);
  if (dtype == CUVIL_DTYPE_BF16)
    return floatToBfloat16(value);
  std::memcpy(&bits, &value, 4);
  return bits;
}

// printf's %.8g form (ONNX Runtime's) with the fewest significant digits
// that read back as the same value: "0.6048455" where %.8g writes
// "0.60484552", as the ONNX test data (numpy's shortest digits) has it, and
// a double's 17 digits where it needs them. As in %.8g, a decimal exponent
// below -4, or of 8 or more (or of as many as the digits), is written
// in scientific form.
int32_t formatReal(int32_t dtype, double value, uint64_t bits, char *text) {
  if (std::isnan(value))
    return std::snprintf(text, CUVIL_NUMBER_TEXT_MAX, "NaN");
  if (std::isinf(value))
    return std::snprintf(text, CUVIL_NUMBER_TEXT_MAX, value < 0 ? "-INF" : "INF");
  int maxDigits = dtype == CUVIL_DTYPE_F64 ? 17 : dtype == CUVIL_DTYPE_F32 ? 9 : 5;
  char scientific[CUVIL_NUMBER_TEXT_MAX]; // "-d.ddde-XX"
  int digits = 1;
  for (; digits < maxDigits; ++digits) {
    std::snprintf(scientific, sizeof scientific, "%.*e", digits - 1, value);
    if (readBack(dtype, scientific) == bits)
      break;
  }
  std::snprintf(scientific, sizeof scientific, "%.*e", digits - 1, value);
  const char *at = scientific;
  bool negative = *at == '-';
  at += negative;
  char mantissa[20];
  int count = 0;
  for (; *at != 'e'; ++at)
    if (*at != '.')
      mantissa[count++] = *at;
  int exponent = std::atoi(at + 1);
  while (count > 1 && mantissa[count - 1] == '0') // %g drops trailing zeros
    --count;
  int threshold = digits > 8 ? digits : 8;
  int length = 0;
  auto put = [&](char c) { text[length++] = c; };
  if (negative)
    put('-');
  if (exponent < -4 || exponent >= threshold) {
    put(mantissa[0]);
    if (count > 1)
      put('.');
    for (int i = 1; i < count; ++i)
      put(mantissa[i]);
    length += std::snprintf(text + length, size_t(CUVIL_NUMBER_TEXT_MAX - length), "e%c%02d",
                            exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
    return length;
  }
  if (exponent < 0) {
    put('0');
    put('.');
    for (int i = -1; i > exponent; --i)
      put('0');
    for (int i = 0; i < count; ++i)
      put(mantissa[i]);
  } else {
    for (int i = 0; i <= exponent; ++i)
      put(i < count ? mantissa[i] : '0');
    if (count > exponent + 1)
      put('.');
    for (int i = exponent + 1; i < count; ++i)
      put(mantissa[i]);
  }
  text[length] = '\0';
  return length;
}

template <typename T> T load(const void *value) {
  T result;
  std::memcpy(&result, value, sizeof(T));
  return result;
}
template <typename T> void store(void *value, T result) { std::memcpy(value, &result, sizeof(T)); }

} // namespace

StringStorage *createStringStorage() {
  auto *storage = static_cast<StringStorage *>(std::malloc(sizeof(StringStorage)));
  if (!storage)
    return nullptr;
  storage->services = cuvil_string_services{storage, allocate, formatNumber, parseNumber};
  storage->chunks = nullptr;
  return storage;
}

void destroyStringStorage(StringStorage *storage) {
  if (!storage)
    return;
  freeChunks(storage->chunks);
  std::free(storage);
}

const cuvil_string_services *stringServices(const StringStorage *storage) {
  return &storage->services;
}

void resetStringStorage(StringStorage *storage) {
  StringChunk *head = storage->chunks;
  if (!head || !head->next) {
    if (head)
      head->used = 0;
    return;
  }
  size_t total = 0;
  for (StringChunk *chunk = head; chunk; chunk = chunk->next)
    total += chunk->size;
  freeChunks(head);
  storage->chunks = nullptr;
  // One chunk for all of it; failing that, chunks are taken again as needed.
  if (auto *chunk = static_cast<StringChunk *>(std::malloc(sizeof(StringChunk) + total))) {
    *chunk = StringChunk{nullptr, total, 0};
    storage->chunks = chunk;
  }
}

int32_t formatNumber(int32_t dtype, const void *value, char *text) {
  int written = 0;
  switch (dtype) {
  case CUVIL_DTYPE_F32:
    return formatReal(dtype, load<float>(value), load<uint32_t>(value), text);
  case CUVIL_DTYPE_F64:
    return formatReal(dtype, load<double>(value), load<uint64_t>(value), text);
  case CUVIL_DTYPE_F16:
    return formatReal(dtype, halfToFloat(load<uint16_t>(value)), load<uint16_t>(value), text);
  case CUVIL_DTYPE_BF16:
    return formatReal(dtype, bfloat16ToFloat(load<uint16_t>(value)), load<uint16_t>(value), text);
  case CUVIL_DTYPE_BOOL:
    written = std::snprintf(text, CUVIL_NUMBER_TEXT_MAX, "%d", load<uint8_t>(value) != 0);
    break;
  case CUVIL_DTYPE_I8:
    written = std::snprintf(text, CUVIL_NUMBER_TEXT_MAX, "%d", int(load<int8_t>(value)));
    break;
  case CUVIL_DTYPE_U8:
    written = std::snprintf(text, CUVIL_NUMBER_TEXT_MAX, "%u", unsigned(load<uint8_t>(value)));
    break;
  case CUVIL_DTYPE_I16:
    written = std::snprintf(text, CUVIL_NUMBER_TEXT_MAX, "%d", int(load<int16_t>(value)));
    break;
  case CUVIL_DTYPE_U16:
    written = std::snprintf(text, CUVIL_NUMBER_TEXT_MAX, "%u", unsigned(load<uint16_t>(value)));
    break;
  case CUVIL_DTYPE_I32:
    written = std::snprintf(text, CUVIL_NUMBER_TEXT_MAX, "%d", load<int32_t>(value));
    break;
  case CUVIL_DTYPE_U32:
    written = std::snprintf(text, CUVIL_NUMBER_TEXT_MAX, "%u", load<uint32_t>(value));
    break;
  case CUVIL_DTYPE_I64:
    written = std::snprintf(text, CUVIL_NUMBER_TEXT_MAX, "%lld", (long long)load<int64_t>(value));
    break;
  case CUVIL_DTYPE_U64:
    written = std::snprintf(text, CUVIL_NUMBER_TEXT_MAX, "%llu",
                            (unsigned long long)load<uint64_t>(value));
    break;
  default:
    break;
  }
  return written;
}

int32_t parseNumber(int32_t dtype, const char *text, int64_t size, void *value) {
  // strtod and strtoll need a terminated copy; a number's text is short, a
  // longer one is read from its first 255 bytes (enough for any number a
  // model writes; the rest is a prefix match's tail).
  char buffer[256];
  size_t length = size < 0 ? 0 : size_t(size) < sizeof buffer ? size_t(size) : sizeof buffer - 1;
  std::memcpy(buffer, text, length);
  buffer[length] = '\0';
  char *end = nullptr;
  errno = 0;
  bool isFloating = isFloatingDType(dtype);
  double real = 0;
  long long integer = 0;
  unsigned long long unsignedInteger = 0;
  if (isFloating)
    real = dtype == CUVIL_DTYPE_F64 ? std::strtod(buffer, &end) : double(std::strtof(buffer, &end));
  else if (dtype == CUVIL_DTYPE_U64 || dtype == CUVIL_DTYPE_BOOL)
    unsignedInteger = std::strtoull(buffer, &end, 10);
  else
    integer = std::strtoll(buffer, &end, 10);
  if (end == buffer || (!isFloating && errno == ERANGE))
    return 1;
  switch (dtype) {
  case CUVIL_DTYPE_F32:
    store(value, float(real));
    break;
  case CUVIL_DTYPE_F64:
    store(value, real);
    break;
  case CUVIL_DTYPE_F16:
    store(value, floatToHalf(float(real)));
    break;
  case CUVIL_DTYPE_BF16:
    store(value, floatToBfloat16(float(real)));
    break;
  case CUVIL_DTYPE_BOOL:
    store(value, uint8_t(unsignedInteger != 0));
    break;
  case CUVIL_DTYPE_U64:
    store(value, uint64_t(unsignedInteger));
    break;
  case CUVIL_DTYPE_I8:
    store(value, int8_t(integer));
    break;
  case CUVIL_DTYPE_U8:
    store(value, uint8_t(integer));
    break;
  case CUVIL_DTYPE_I16:
    store(value, int16_t(integer));
    break;
  case CUVIL_DTYPE_U16:
    store(value, uint16_t(integer));
    break;
  case CUVIL_DTYPE_I32:
    store(value, int32_t(integer));
    break;
  case CUVIL_DTYPE_U32:
    store(value, uint32_t(integer));
    break;
  case CUVIL_DTYPE_I64:
    store(value, int64_t(integer));
    break;
  default:
    return 1;
  }
  return 0;
}

} // namespace cuvil::runtime
