// Exp: y = exp(x).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Exp",
    .kernel = CUVIL_UNARY_EXP,
    .reference = [](double x, std::span<const float>) -> double { return std::exp(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kExpOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
