// Round: y = x rounded to the nearest integer, halves to even.
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Round",
    .kernel = CUVIL_UNARY_ROUND,
    .reference = [](double x, std::span<const float>) -> double { return std::nearbyint(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kRoundOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
