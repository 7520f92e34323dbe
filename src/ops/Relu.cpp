// Relu: y = max(x, 0).
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Relu",
    .kernel = CUVIL_UNARY_RELU,
    .reference = [](double x, std::span<const float>) -> double { return x > 0 ? x : 0.0; },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kReluOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
