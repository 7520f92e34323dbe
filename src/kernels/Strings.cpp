// String kernels (include/cuvil/kernels/Strings.h): Cast to and from text
// through the frame's string services, StringNormalizer, StringConcat.
#include "KernelSupport.h"
#include "RowOdometer.h"

#include "cuvil/kernels/Strings.h"

using namespace cuvil::kernels;

namespace {

// Cast to string, two passes over the elements [begin, end):
//   text_i = format_number(x[i]); total += len_i
//   storage = allocate(total); y[i] = (storage + offset_i, len_i)
// (formatting twice costs less than a text buffer per element would).
template <typename T>
CUVIL_INLINE void castToString(const cuvil_string_services *strings, int32_t dtype, const T *x,
                               cuvil_string *y, int64_t *error, int64_t begin, int64_t end) {
  char text[CUVIL_NUMBER_TEXT_MAX];
  int64_t total = 0;
  for (int64_t i = begin; i < end; ++i)
    total += strings->format_number(dtype, &x[i], text);
  char *storage = strings->allocate(strings->context, total);
  if (!storage && total > 0)
    return raiseError(error, 1, total);
  for (int64_t i = begin; i < end; ++i) {
    int32_t length = strings->format_number(dtype, &x[i], text);
    for (int32_t c = 0; c < length; ++c)
      storage[c] = text[c];
    y[i] = cuvil_string{storage, length};
    storage += length;
  }
}

template <typename T>
CUVIL_INLINE void castFromString(const cuvil_string_services *strings, int32_t dtype,
                                 const cuvil_string *x, T *y, int64_t *error, int64_t begin,
                                 int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    if (strings->parse_number(dtype, x[i].data, x[i].size, &y[i]) != 0)
      return raiseError(error, 1, i);
}

// Letters whose cases map one to one within the same UTF-8 length, as
// lower-case code points [first, last] (every `step`-th from first) whose
// upper case is lower + delta. First match wins: final sigma is last, so
// that Sigma lowers to the ordinary sigma.
struct CaseRange {
  uint32_t first, last;
  int32_t delta;
  uint32_t step;
};
constexpr CaseRange kCaseRanges[] = {
    {0x61, 0x7A, -32, 1},   {0xE0, 0xF6, -32, 1},   {0xF8, 0xFE, -32, 1},   {0xFF, 0xFF, 0x79, 1},
    {0x101, 0x12F, -1, 2},  {0x133, 0x137, -1, 2},  {0x13A, 0x148, -1, 2},  {0x14B, 0x177, -1, 2},
    {0x17A, 0x17E, -1, 2},  {0x3B1, 0x3C1, -32, 1}, {0x3C3, 0x3C9, -32, 1}, {0x430, 0x44F, -32, 1},
    {0x450, 0x45F, -80, 1}, {0x3C2, 0x3C2, -31, 1},
};

CUVIL_INLINE uint32_t changeCase(uint32_t c, int64_t change, bool asciiOnly) {
  if (asciiOnly && c >= 0x80)
    return c;
  for (const CaseRange &range : kCaseRanges) {
    uint32_t from = range.first, to = range.last;
    int32_t delta = range.delta;
    if (change == CUVIL_CASE_LOWER) { // from the upper-case range
      from = uint32_t(int32_t(from) + delta);
      to = uint32_t(int32_t(to) + delta);
      delta = -delta;
    }
    if (c >= from && c <= to && (c - from) % range.step == 0)
      return uint32_t(int32_t(c) + delta);
  }
  return c;
}

// The character at s[i] as (code point, bytes): one- and two-byte UTF-8
// sequences decode; anything else is one byte, kept as it is (no letter
// this maps is longer).
struct Character {
  uint32_t code;
  int64_t bytes;
  bool decoded;
};
CUVIL_INLINE Character characterAt(const char *s, int64_t size, int64_t i) {
  uint8_t b0 = uint8_t(s[i]);
  if (b0 < 0x80)
    return {b0, 1, true};
  if ((b0 & 0xE0) == 0xC0 && i + 1 < size && (uint8_t(s[i + 1]) & 0xC0) == 0x80)
    return {uint32_t(b0 & 0x1F) << 6 | (uint8_t(s[i + 1]) & 0x3F), 2, true};
  return {b0, 1, false};
}

// Writes s with its letters' case changed to out (the same length).
CUVIL_INLINE void writeCaseChanged(const cuvil_string &s, int64_t change, bool asciiOnly,
                                   char *out) {
  for (int64_t i = 0; i < s.size;) {
    Character c = characterAt(s.data, s.size, i);
    uint32_t code = c.decoded ? changeCase(c.code, change, asciiOnly) : c.code;
    if (c.bytes == 1) {
      out[i] = char(code);
    } else {
      out[i] = char(0xC0 | (code >> 6));
      out[i + 1] = char(0x80 | (code & 0x3F));
    }
    i += c.bytes;
  }
}

CUVIL_INLINE bool sameText(const cuvil_string &s, const uint8_t *word, int64_t size,
                           bool caseSensitive, bool asciiOnly) {
  if (s.size != size)
    return false;
  const char *w = reinterpret_cast<const char *>(word);
  for (int64_t i = 0; i < size;) {
    Character a = characterAt(s.data, size, i), b = characterAt(w, size, i);
    if (a.bytes != b.bytes)
      return false;
    uint32_t ca = a.code, cb = b.code;
    if (!caseSensitive && a.decoded && b.decoded) {
      ca = changeCase(ca, CUVIL_CASE_LOWER, asciiOnly);
      cb = changeCase(cb, CUVIL_CASE_LOWER, asciiOnly);
    }
    if (ca != cb)
      return false;
    i += a.bytes;
  }
  return true;
}

} // namespace

// One task ([0, 1)) over all the elements: its texts share one allocation.
#define CUVIL_DEFINE_STRING_CASTS(name, T, dtype)                                                  \
  CUVIL_KERNEL_DECL void cuvil_cast_##name##_to_string(                                            \
      const struct cuvil_string_services *strings, const T *x, struct cuvil_string *y,             \
      int64_t elements, int64_t *error, int64_t, int64_t) {                                        \
    castToString(strings, dtype, x, y, error, 0, elements);                                        \
  }                                                                                                \
  CUVIL_KERNEL_DECL void cuvil_cast_string_to_##name(                                              \
      const struct cuvil_string_services *strings, const struct cuvil_string *x, T *y,             \
      int64_t elements, int64_t *error, int64_t, int64_t) {                                        \
    castFromString(strings, dtype, x, y, error, 0, elements);                                      \
  }
CUVIL_STRING_CAST_TYPES(CUVIL_DEFINE_STRING_CASTS)

// kept_i = x[i] is no stopword                     (one pass: count, bytes)
// storage = allocate(bytes of the kept)            (none without a case change)
// y[k++] = kept_i case-changed into storage, or x[i] itself
// no string kept: y[0] = "", count = 1   (count: only with stopwords)
CUVIL_KERNEL_DECL void
cuvil_string_normalize(const struct cuvil_string_services *strings, const struct cuvil_string *x,
                       const uint8_t *stopword_bytes, const int64_t *stopword_starts,
                       struct cuvil_string *y, int64_t *count, int64_t *error,
                       const struct cuvil_string_normalizer_params *p, int64_t, int64_t) {
  auto isStopword = [&](const cuvil_string &s) {
    for (int64_t k = 0; k < p->num_stopwords; ++k)
      if (sameText(s, stopword_bytes + stopword_starts[k],
                   stopword_starts[k + 1] - stopword_starts[k], p->case_sensitive != 0,
                   p->ascii_only != 0))
        return true;
    return false;
  };
  int64_t kept = 0, bytes = 0;
  for (int64_t i = 0; i < p->elements; ++i)
    if (!isStopword(x[i])) {
      y[kept++] = x[i]; // case changed below
      bytes += x[i].size;
    }
  if (p->num_stopwords > 0) { // the count is a symbol of the result's shape
    *count = kept ? kept : 1;
    if (kept == 0) {
      y[0] = cuvil_string{"", 0};
      return;
    }
  }
  if (p->case_change == CUVIL_CASE_NONE)
    return;
  char *storage = strings->allocate(strings->context, bytes);
  if (!storage && bytes > 0)
    return raiseError(error, 1, bytes);
  for (int64_t k = 0; k < kept; ++k) {
    writeCaseChanged(y[k], p->case_change, p->ascii_only != 0, storage);
    y[k].data = storage;
    storage += y[k].size;
  }
}

// y[i] = k where table[k] == x[i], else -1: a binary search, comparing
// bytes as unsigned (the order the compiler sorted the table in).
CUVIL_KERNEL_DECL void cuvil_string_index(const struct cuvil_string *x, const uint8_t *bytes,
                                          const int64_t *starts, int64_t *y,
                                          const struct cuvil_string_index_params *p, int64_t begin,
                                          int64_t end) {
  auto compare = [&](const cuvil_string &s, int64_t k) { // <0, 0, >0: s against table[k]
    const uint8_t *entry = bytes + starts[k];
    int64_t size = starts[k + 1] - starts[k], common = s.size < size ? s.size : size;
    for (int64_t c = 0; c < common; ++c)
      if (uint8_t(s.data[c]) != entry[c])
        return int(uint8_t(s.data[c])) - int(entry[c]);
    return s.size < size ? -1 : s.size > size ? 1 : 0;
  };
  for (int64_t i = begin; i < end; ++i) {
    int64_t lo = 0, hi = p->count, found = -1;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      int order = compare(x[i], mid);
      if (order == 0) {
        found = mid;
        break;
      }
      if (order < 0)
        hi = mid;
      else
        lo = mid + 1;
    }
    y[i] = found;
  }
}

// Two passes over the broadcast pairs, as Cast to string does:
//   total += |a| + |b|;  storage = allocate(total)
//   y[i] = a + b copied into storage
CUVIL_KERNEL_DECL void cuvil_string_concat(const struct cuvil_string_services *strings,
                                           const struct cuvil_string *a,
                                           const struct cuvil_string *b, struct cuvil_string *y,
                                           int64_t rows, int64_t *error,
                                           const struct cuvil_binary_params *p, int64_t, int64_t) {
  if (rows == 0) // an empty result (a zero extent the row walker would divide by)
    return;
  const int64_t inner = p->shape[5], as = p->a_strides[5], bs = p->b_strides[5];
  const int64_t *const strides[2] = {p->a_strides, p->b_strides};
  auto forEachPair = [&](auto &&visit) CUVIL_LAMBDA_INLINE {
    RowOdometer<2> at(0, p->shape, strides);
    for (int64_t row = 0; row < rows; ++row, at.next())
      for (int64_t i = 0; i < inner; ++i)
        visit(row * inner + i, a[at.offset[0] + i * as], b[at.offset[1] + i * bs]);
  };
  int64_t total = 0;
  forEachPair([&](int64_t, const cuvil_string &x, const cuvil_string &z)
                  CUVIL_LAMBDA_INLINE { total += x.size + z.size; });
  char *storage = strings->allocate(strings->context, total);
  if (!storage && total > 0)
    return raiseError(error, 1, total);
  forEachPair([&](int64_t k, const cuvil_string &x, const cuvil_string &z) CUVIL_LAMBDA_INLINE {
    for (int64_t c = 0; c < x.size; ++c)
      storage[c] = x.data[c];
    for (int64_t c = 0; c < z.size; ++c)
      storage[x.size + c] = z.data[c];
    y[k] = cuvil_string{storage, x.size + z.size};
    storage += x.size + z.size;
  });
}

CUVIL_KERNEL_DECL void cuvil_string_constant(const uint8_t *bytes, const int64_t *starts,
                                             struct cuvil_string *y, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    y[i] =
        cuvil_string{reinterpret_cast<const char *>(bytes) + starts[i], starts[i + 1] - starts[i]};
}
