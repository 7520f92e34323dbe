// cuvil.Silu: y = x * sigmoid(x), which canonicalize makes of the
// Mul(x, Sigmoid(x)) exporters write (SiLU, Swish with beta 1).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{.name = "cuvil.Silu",
                          .kernel = CUVIL_UNARY_SILU,
                          .reference = [](double x, std::span<const float>) -> double {
                            return x / (1.0 + std::exp(-x));
                          },
                          .finiteAtZero = true};
} // namespace
extern const OpDefinition kSiluOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
