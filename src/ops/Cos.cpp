// Cos: y = cos(x).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Cos",
    .kernel = CUVIL_UNARY_COS,
    .reference = [](double x, std::span<const float>) -> double { return std::cos(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kCosOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
