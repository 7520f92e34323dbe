// Asinh: y = asinh(x).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Asinh",
    .kernel = CUVIL_UNARY_ASINH,
    .reference = [](double x, std::span<const float>) -> double { return std::asinh(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kAsinhOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
