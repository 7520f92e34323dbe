// Sign: y = -1, 0 or 1 by the sign of x (nan stays nan).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Sign",
    .kernel = CUVIL_UNARY_SIGN,
    .reference = [](double x, std::span<const float>) -> double {
      return x > 0 ? 1.0 : (x < 0 ? -1.0 : x);
    },
    .finiteAtZero = true,
};
} // namespace
extern const OpDefinition kSignOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
