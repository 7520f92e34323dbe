// Sinh: y = sinh(x).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Sinh",
    .kernel = CUVIL_UNARY_SINH,
    .reference = [](double x, std::span<const float>) -> double { return std::sinh(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kSinhOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
