// Selu: y = gamma (x <= 0 ? alpha (e^x - 1) : x), with ONNX's defaults for
// the self-normalising constants.
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Selu",
    .kernel = CUVIL_UNARY_SELU,
    .reference = [](double x, std::span<const float> p) -> double {
      return double(p[1]) * (x <= 0 ? double(p[0]) * std::expm1(x) : x);
    },
    .params = {{"alpha", 1.67326319217681884765625f}, {"gamma", 1.05070102214813232421875f}},
    .finiteAtZero = true};
} // namespace
extern const OpDefinition kSeluOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
