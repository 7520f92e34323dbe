// Shrink: y = x < -lambd ? x + bias : (x > lambd ? x - bias : 0).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Shrink",
    .kernel = CUVIL_UNARY_SHRINK,
    .reference = [](double x, std::span<const float> p) -> double {
      return x < -double(p[0]) ? x + double(p[1]) : (x > double(p[0]) ? x - double(p[1]) : 0.0);
    },
    .params = {{"lambd", 0.5f}, {"bias", 0.0f}},
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kShrinkOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
