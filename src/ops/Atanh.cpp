// Atanh: y = atanh(x); +-inf at +-1, nan beyond.
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Atanh",
    .kernel = CUVIL_UNARY_ATANH,
    .reference = [](double x, std::span<const float>) -> double { return std::atanh(x); },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kAtanhOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
