// Log: y = ln(x); infinite at 0, so never a fused activation.
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Log",
    .kernel = CUVIL_UNARY_LOG,
    .reference = [](double x, std::span<const float>) -> double { return std::log(x); },
};
} // namespace
extern const OpDefinition kLogOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
