// HardSwish: y = x * relu6(x + 3) / 6.
#include "Elementwise.h"

#include <algorithm>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "HardSwish",
    .kernel = CUVIL_UNARY_HARDSWISH,
    .reference = [](double x, std::span<const float>) -> double {
      return x * std::clamp(x + 3.0, 0.0, 6.0) / 6.0;
    },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kHardSwishOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
