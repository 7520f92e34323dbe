#include "StringServices.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <string>

using namespace cuvil::runtime;

namespace {

template <typename T> std::string text(int32_t dtype, T value) {
  char buffer[CUVIL_NUMBER_TEXT_MAX];
  int32_t length = formatNumber(dtype, &value, buffer);
  return std::string(buffer, size_t(length));
}

template <typename T> T parsed(int32_t dtype, const std::string &text, bool ok = true) {
  T value{};
  EXPECT_EQ(parseNumber(dtype, text.data(), int64_t(text.size()), &value), ok ? 0 : 1) << text;
  return value;
}

TEST(StringServices, FormatsTheFewestDigitsThatReadBack) {
  // %.8g would write 0.60484552 and 9.9999997e-06; both read back from fewer.
  EXPECT_EQ(text(CUVIL_DTYPE_F32, 0.6048455f), "0.6048455");
  EXPECT_EQ(text(CUVIL_DTYPE_F32, 1e-5f), "1e-05");
  EXPECT_EQ(text(CUVIL_DTYPE_F32, 0.039187793f), "0.039187793");
  EXPECT_EQ(text(CUVIL_DTYPE_F32, 100.0f), "100");
  EXPECT_EQ(text(CUVIL_DTYPE_F32, -0.0f), "-0");
  EXPECT_EQ(text(CUVIL_DTYPE_F32, 16777216.0f), "16777216");
  EXPECT_EQ(text(CUVIL_DTYPE_F32, std::numeric_limits<float>::denorm_min()), "1e-45");
  EXPECT_EQ(text(CUVIL_DTYPE_F32, std::nanf("")), "NaN");
  EXPECT_EQ(text(CUVIL_DTYPE_F32, -INFINITY), "-INF");
  EXPECT_EQ(text(CUVIL_DTYPE_F64, 1.0 / 3.0), "0.3333333333333333");
  // %.8g's layout: positional up to 8 digits before the point, more when the
  // digits need it.
  EXPECT_EQ(text(CUVIL_DTYPE_F32, 123456792.0f), "1.2345679e+08");
  EXPECT_EQ(text(CUVIL_DTYPE_F64, 12345678.9), "12345678.9");
  EXPECT_EQ(text(CUVIL_DTYPE_F64, 1e300), "1e+300");
  EXPECT_EQ(text(CUVIL_DTYPE_F32, 0.0001f), "0.0001");
  EXPECT_EQ(text(CUVIL_DTYPE_F32, -2.5e-5f), "-2.5e-05");
  EXPECT_EQ(text(CUVIL_DTYPE_F64, 0.1), "0.1");
  EXPECT_EQ(text(CUVIL_DTYPE_F16, uint16_t(0x2E66)), "0.1"); // the half nearest 0.1
  EXPECT_EQ(text(CUVIL_DTYPE_BF16, uint16_t(0x3FC0)), "1.5");
}

TEST(StringServices, FormatsIntegersAndBool) {
  EXPECT_EQ(text(CUVIL_DTYPE_I64, std::numeric_limits<int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(text(CUVIL_DTYPE_U64, std::numeric_limits<uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(text(CUVIL_DTYPE_I8, int8_t(-128)), "-128");
  EXPECT_EQ(text(CUVIL_DTYPE_U16, uint16_t(65535)), "65535");
  EXPECT_EQ(text(CUVIL_DTYPE_BOOL, uint8_t(1)), "1");
}

TEST(StringServices, ParsesPrefixesAsOnnxRuntimeDoes) {
  EXPECT_EQ(parsed<float>(CUVIL_DTYPE_F32, " 3.5"), 3.5f);
  EXPECT_EQ(parsed<float>(CUVIL_DTYPE_F32, "12abc"), 12.0f);
  EXPECT_EQ(parsed<float>(CUVIL_DTYPE_F32, "+INF"), INFINITY);
  EXPECT_TRUE(std::isnan(parsed<float>(CUVIL_DTYPE_F32, "NaN")));
  EXPECT_EQ(parsed<float>(CUVIL_DTYPE_F32, "1e39"), INFINITY);
  EXPECT_EQ(parsed<double>(CUVIL_DTYPE_F64, "0.1"), 0.1);
  EXPECT_EQ(parsed<uint16_t>(CUVIL_DTYPE_F16, "70000"), 0x7C00); // past the largest half
  EXPECT_EQ(parsed<uint16_t>(CUVIL_DTYPE_F16, "0.1"), 0x2E66);
  EXPECT_EQ(parsed<int64_t>(CUVIL_DTYPE_I64, "9223372036854775807"),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(parsed<int64_t>(CUVIL_DTYPE_I64, "100.5"), 100);
  EXPECT_EQ(parsed<uint8_t>(CUVIL_DTYPE_U8, "300"), 44); // truncated to 8 bits
  EXPECT_EQ(parsed<uint8_t>(CUVIL_DTYPE_BOOL, "2"), 1);
  parsed<float>(CUVIL_DTYPE_F32, "apple", false);
  parsed<float>(CUVIL_DTYPE_F32, "", false);
  parsed<int64_t>(CUVIL_DTYPE_I64, "99999999999999999999", false);
  // Text longer than any number reads from its start.
  EXPECT_EQ(parsed<float>(CUVIL_DTYPE_F32, "2.5" + std::string(1000, ' ')), 2.5f);
}

TEST(StringServices, StorageLastsARunAndIsReusedAfter) {
  StringStorage *storage = createStringStorage();
  ASSERT_NE(storage, nullptr);
  const cuvil_string_services *services = stringServices(storage);
  // More than the first chunk, in pieces: several chunks, each piece intact.
  std::vector<char *> pieces;
  for (int i = 0; i < 100; ++i) {
    char *piece = services->allocate(services->context, 4000);
    ASSERT_NE(piece, nullptr);
    std::memset(piece, i, 4000);
    pieces.push_back(piece);
  }
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(pieces[size_t(i)][3999], char(i));
  resetStringStorage(storage);
  // One chunk now holds what the run used: the same run allocates nothing new.
  char *first = services->allocate(services->context, 4000);
  for (int i = 1; i < 100; ++i)
    ASSERT_NE(services->allocate(services->context, 4000), nullptr);
  resetStringStorage(storage);
  EXPECT_EQ(services->allocate(services->context, 4000), first);
  EXPECT_EQ(services->allocate(services->context, -1), nullptr);
  destroyStringStorage(storage);
}

} // namespace
