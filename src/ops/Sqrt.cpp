// Sqrt: y = sqrt(x).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Sqrt",
    .kernel = CUVIL_UNARY_SQRT,
    .reference = [](double x, std::span<const float>) -> double { return std::sqrt(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kSqrtOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
