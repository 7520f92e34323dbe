// Softplus: y = log(1 + e^x).
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{.name = "Softplus",
                          .kernel = CUVIL_UNARY_SOFTPLUS,
                          .reference = [](double x, std::span<const float>) -> double {
                            return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x)));
                          },
                          .finiteAtZero = true};
} // namespace
extern const OpDefinition kSoftplusOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
