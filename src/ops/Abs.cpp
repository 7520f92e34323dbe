// Abs: y = |x|.
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Abs",
    .kernel = CUVIL_UNARY_ABS,
    .reference = [](double x, std::span<const float>) -> double { return std::fabs(x); },
    .finiteAtZero = true,
    .integers = true,
};
} // namespace
extern const OpDefinition kAbsOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
