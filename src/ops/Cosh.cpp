// Cosh: y = cosh(x).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Cosh",
    .kernel = CUVIL_UNARY_COSH,
    .reference = [](double x, std::span<const float>) -> double { return std::cosh(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kCoshOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
