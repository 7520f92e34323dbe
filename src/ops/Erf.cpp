// Erf: y = erf(x).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Erf",
    .kernel = CUVIL_UNARY_ERF,
    .reference = [](double x, std::span<const float>) -> double { return std::erf(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kErfOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
