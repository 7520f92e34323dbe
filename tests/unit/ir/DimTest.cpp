// The dim-expression algebra: canonical forms (equal expressions compare
// equal), simplification of floordiv, min and max by bounds, interval
// bounds and evaluation.
#include "cuvil/ir/Dim.h"

#include <gtest/gtest.h>

#include <limits>

namespace cuvil {
namespace {

Dim symbol(const char *name, int64_t min, int64_t opt, int64_t max) {
  return Dim::symbol(SymbolTable::global().add({.name = name, .min = min, .opt = opt, .max = max}));
}

TEST(Dim, ConstantsStayConstants) {
  Dim d = Dim(3) * 4 + 2;
  ASSERT_TRUE(d.isConstant());
  EXPECT_EQ(d.constant(), 14);
  EXPECT_TRUE(floorDiv(Dim(-7), Dim(2)).is(-4));
  EXPECT_TRUE(ceilDiv(Dim(7), Dim(2)).is(4));
  EXPECT_TRUE(mod(Dim(-7), Dim(3)).is(2));
  EXPECT_TRUE(minDim(Dim(3), Dim(5)).is(3));
  EXPECT_EQ(Dim(5).str(), "5");
}

TEST(Dim, ASymbolAloneIsItsSymbol) {
  SymbolId id = SymbolTable::global().add({.name = "k", .min = 0, .opt = 9, .max = 9});
  Dim k = Dim::symbol(id);
  EXPECT_EQ(k.asSymbol(), id);
  EXPECT_FALSE((k + 1).asSymbol());
  EXPECT_FALSE((k * 2).asSymbol());
  EXPECT_FALSE(Dim(3).asSymbol());
  EXPECT_EQ(symbolNameFrom("in/0:x"), "in_0_x");
  EXPECT_EQ(symbolNameFrom("3d"), "_3d");
}

TEST(Dim, EqualExpressionsCompareEqual) {
  Dim s = symbol("s", 1, 8, 512), t = symbol("t", 1, 1, 4);
  EXPECT_EQ(s + t, t + s);
  EXPECT_EQ(s * t * 2, t * (s + s));
  EXPECT_TRUE((s + s - 2 * s).is(0));
  EXPECT_EQ((s + 1) * (s - 1), s * s - 1);
  EXPECT_FALSE(s == t);
  EXPECT_EQ(floorDiv(s * 64, Dim(64)), s);
  EXPECT_EQ(floorDiv(s * 12 * t, Dim(12)), s * t);
  EXPECT_EQ(floorDiv(s, s), Dim(1));
}

TEST(Dim, FloorDivSplitsOffTheDivisiblePart) {
  Dim s = symbol("s", 1, 8, 512);
  // 4s + 3 = 4 s + (3 in [0, 4)): exactly s.
  EXPECT_EQ(floorDiv(s * 4 + 3, Dim(4)), s);
  // 8s + s + 1: 2 s + floordiv(s + 1, 4).
  Dim d = floorDiv(s * 9 + 1, Dim(4));
  EXPECT_EQ(d, s * 2 + floorDiv(s + 1, Dim(4)));
  EXPECT_EQ(d.str(), "2*s + floordiv(s + 1, 4)");
  for (int64_t v : {1, 2, 3, 7, 100, 512}) {
    int64_t values[64] = {};
    values[s.symbols()[0]] = v;
    EXPECT_EQ(d.evaluate(values), (9 * v + 1) / 4) << v;
    EXPECT_EQ(mod(s * 9 + 1, Dim(4)).evaluate(values), (9 * v + 1) % 4) << v;
  }
}

TEST(Dim, DivisionByAMonomialFactorsItOut) {
  // Reshape's -1: the element count over the known dims.
  Dim n = symbol("n", 1, 1, 8), s = symbol("s", 8, 128, 512);
  EXPECT_EQ(floorDiv(n * s * 768, n * s), Dim(768));
  EXPECT_EQ(floorDiv(n * s * 768, s * 64), n * 12);
  EXPECT_EQ(floorDiv(n * s * 768 + s * 2, s * 2), n * 384 + 1);
  // Not a factor of every term: stays a floordiv.
  EXPECT_FALSE(floorDiv(n * s + 1, s).isConstant());
  EXPECT_EQ(floorDiv(n * s + 1, s).str(), "floordiv(n*s + 1, s)");
}

TEST(Dim, BoundsDecideMinAndMax) {
  Dim s = symbol("s", 8, 128, 512);
  EXPECT_EQ(minDim(s, Dim(600)), s);
  EXPECT_TRUE(maxDim(s, Dim(4)) == s);
  Dim clipped = minDim(s, Dim(256));
  EXPECT_FALSE(clipped.isConstant());
  EXPECT_EQ(clipped.str(), "min(256, s)"); // operands in canonical order
  EXPECT_EQ(clipped.max(), 256);
  EXPECT_EQ(clipped.min(), 8);
  EXPECT_EQ(clipped.opt(), 128);
  EXPECT_EQ(minDim(s, Dim(256)), clipped);
  // Bounds of the difference decide where those of the operands overlap.
  EXPECT_EQ(minDim(s - 1, s), s - 1);
  EXPECT_EQ(maxDim(s * 2, s + 8), s * 2);
  EXPECT_FALSE(minDim(s * 2, s + 200).isConstant());
}

TEST(Dim, BoundsOfProductsAndQuotients) {
  Dim b = symbol("b", 1, 1, 8), s = symbol("s", 8, 128, 512);
  Dim elements = b * s * 768;
  EXPECT_EQ(elements.min(), 8 * 768);
  EXPECT_EQ(elements.max(), 8 * 512 * 768);
  EXPECT_EQ(elements.opt(), 128 * 768);
  Dim half = ceilDiv(s, Dim(2));
  EXPECT_EQ(half.min(), 4);
  EXPECT_EQ(half.max(), 256);
  EXPECT_EQ((Dim(10) - s).max(), 2);
  EXPECT_EQ((s - b).min(), 0);
}

// A model can ask for dims whose products overflow 64 bits: the arithmetic
// saturates at kDimLimit (shape inference then refuses the result) instead
// of wrapping around into a size that looks plausible.
TEST(Dim, OverflowSaturatesAtTheLimit) {
  Dim huge = Dim(int64_t(1) << 40);
  EXPECT_TRUE((huge * huge).is(kDimLimit));
  EXPECT_TRUE((-huge * huge).is(-kDimLimit));
  EXPECT_TRUE((Dim(kDimLimit) + kDimLimit).is(kDimLimit));
  Dim lowest = Dim(std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(floorDiv(lowest, Dim(-1)).is(kDimLimit));
  EXPECT_TRUE((-lowest).is(kDimLimit));
  EXPECT_EQ(lowest.str(), "-9223372036854775808");
  Dim s = symbol("s", 1, 2, 4);
  Dim big = s * huge * huge;
  EXPECT_EQ(big.max(), kDimLimit);
  EXPECT_EQ(big.opt(), kDimLimit);
  EXPECT_EQ(big.str(), "4611686018427387904*s");
}

TEST(Dim, SymbolsAreCollected) {
  Dim b = symbol("b", 1, 1, 8), s = symbol("s", 8, 128, 512);
  std::vector<SymbolId> ids = (b * 3 + floorDiv(s, b)).symbols();
  EXPECT_EQ(ids.size(), 2u);
}

} // namespace
} // namespace cuvil
