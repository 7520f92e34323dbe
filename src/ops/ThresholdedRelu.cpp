// ThresholdedRelu: y = x > alpha ? x : 0.
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "ThresholdedRelu",
    .kernel = CUVIL_UNARY_THRESHOLDED_RELU,
    .reference = [](double x, std::span<const float> p) -> double {
      return x > double(p[0]) ? x : 0.0;
    },
    .params = {{"alpha", 1.0f}},
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kThresholdedReluOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
