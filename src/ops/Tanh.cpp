// Tanh: y = tanh(x).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Tanh",
    .kernel = CUVIL_UNARY_TANH,
    .reference = [](double x, std::span<const float>) -> double { return std::tanh(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kTanhOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
