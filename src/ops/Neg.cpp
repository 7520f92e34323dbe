// Neg: y = -x.
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Neg",
    .kernel = CUVIL_UNARY_NEG,
    .reference = [](double x, std::span<const float>) -> double { return -x; },
    .finiteAtZero = true,
    .integers = true,
};
} // namespace
extern const OpDefinition kNegOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
