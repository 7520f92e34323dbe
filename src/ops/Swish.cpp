// Swish (opset 24): y = x * sigmoid(alpha * x); alpha 1 is SiLU.
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{.name = "Swish",
                          .kernel = CUVIL_UNARY_SWISH,
                          .reference = [](double x, std::span<const float> p) -> double {
                            return x / (1.0 + std::exp(-double(p[0]) * x));
                          },
                          .params = {{"alpha", 1.0f}},
                          .finiteAtZero = true};
} // namespace
extern const OpDefinition kSwishOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
