// Sin: y = sin(x).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Sin",
    .kernel = CUVIL_UNARY_SIN,
    .reference = [](double x, std::span<const float>) -> double { return std::sin(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kSinOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
