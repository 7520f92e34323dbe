// Acos: y = acos(x); nan outside [-1, 1].
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Acos",
    .kernel = CUVIL_UNARY_ACOS,
    .reference = [](double x, std::span<const float>) -> double { return std::acos(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kAcosOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
