// Floor: y = floor(x).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Floor",
    .kernel = CUVIL_UNARY_FLOOR,
    .reference = [](double x, std::span<const float>) -> double { return std::floor(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kFloorOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
