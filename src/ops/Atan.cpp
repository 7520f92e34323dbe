// Atan: y = atan(x).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Atan",
    .kernel = CUVIL_UNARY_ATAN,
    .reference = [](double x, std::span<const float>) -> double { return std::atan(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kAtanOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
