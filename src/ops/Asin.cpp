// Asin: y = asin(x); nan outside [-1, 1].
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Asin",
    .kernel = CUVIL_UNARY_ASIN,
    .reference = [](double x, std::span<const float>) -> double { return std::asin(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kAsinOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
