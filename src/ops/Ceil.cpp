// Ceil: y = ceil(x).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Ceil",
    .kernel = CUVIL_UNARY_CEIL,
    .reference = [](double x, std::span<const float>) -> double { return std::ceil(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kCeilOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
