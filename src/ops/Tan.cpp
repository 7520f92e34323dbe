// Tan: y = tan(x).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Tan",
    .kernel = CUVIL_UNARY_TAN,
    .reference = [](double x, std::span<const float>) -> double { return std::tan(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kTanOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
