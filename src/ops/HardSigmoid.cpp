// HardSigmoid: y = max(0, min(1, alpha * x + beta)).
#include "Elementwise.h"

#include <algorithm>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{.name = "HardSigmoid",
                          .kernel = CUVIL_UNARY_HARDSIGMOID,
                          .reference = [](double x, std::span<const float> p) -> double {
                            return std::clamp(double(p[0]) * x + double(p[1]), 0.0, 1.0);
                          },
                          .params = {{"alpha", 0.2f}, {"beta", 0.5f}},
                          .finiteAtZero = true};
} // namespace
extern const OpDefinition kHardSigmoidOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
