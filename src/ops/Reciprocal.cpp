// Reciprocal: y = 1 / x; infinite at 0, so never a fused activation.
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Reciprocal",
    .kernel = CUVIL_UNARY_RECIPROCAL,
    .reference = [](double x, std::span<const float>) -> double { return 1.0 / x; },
};
} // namespace
extern const OpDefinition kReciprocalOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
