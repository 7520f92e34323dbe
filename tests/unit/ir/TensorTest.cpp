#include "cuvil/ir/Tensor.h"
#include "cuvil/support/Half.h"

#include <cmath>
#include <gtest/gtest.h>

namespace cuvil {
namespace {

TEST(Half, RoundTripsEveryHalfValue) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float value = halfToFloat(uint16_t(bits));
    if (std::isnan(value))
      continue;
    EXPECT_EQ(floatToHalf(value), bits) << std::hex << bits;
  }
}

TEST(Half, RoundsToNearestEven) {
  EXPECT_EQ(floatToHalf(1.0f + 1.0f / 2048), 0x3c00);    // tie -> even (down)
  EXPECT_EQ(floatToHalf(1.0f + 3.0f / 2048), 0x3c02);    // tie -> even (up)
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);              // overflows to inf
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // tie with 0 -> 0
  EXPECT_EQ(floatToBfloat16(1.0f + 1.0f / 256), 0x3f80); // tie -> even
  EXPECT_EQ(bfloat16ToFloat(floatToBfloat16(-2.5f)), -2.5f);
}

TEST(Tensor, CopiesShareUntilWritten) {
  Tensor a = Tensor::fromFloats(std::vector<float>{1, 2, 3, 4}, {2, 2});
  Tensor b = a;
  b.setDouble(0, 9);
  EXPECT_EQ(a.getDouble(0), 1);
  EXPECT_EQ(b.getDouble(0), 9);
  EXPECT_EQ(a.reshaped({4}).shape(), Shape{4});
}

TEST(Tensor, CastsLikeOnnx) {
  Tensor f = Tensor::fromFloats(std::vector<float>{-1.7f, 0.0f, 2.9f}, {3});
  EXPECT_EQ(f.castTo(DType::I64).toInt64s(), (std::vector<int64_t>{-1, 0, 2}));
  EXPECT_EQ(f.castTo(DType::Bool).toInt64s(), (std::vector<int64_t>{1, 0, 1}));
  Tensor big = Tensor::fromInt64s(std::vector<int64_t>{int64_t(1) << 40}, {1});
  EXPECT_EQ(big.castTo(DType::F64).getDouble(0), std::ldexp(1.0, 40));
}

} // namespace
} // namespace cuvil
