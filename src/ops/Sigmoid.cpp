// Sigmoid: y = 1 / (1 + exp(-x)).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Sigmoid",
    .kernel = CUVIL_UNARY_SIGMOID,
    .reference = [](double x, std::span<const float>) -> double {
      return 1.0 / (1.0 + std::exp(-x));
    },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kSigmoidOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
