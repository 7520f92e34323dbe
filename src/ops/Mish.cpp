// Mish (opset 18): y = x tanh(softplus(x)). Native: Debian's ONNX 1.12
// predates the op and its function body; as a unary op it also fuses into
// convolution epilogues and elementwise chains (YOLOv4-style backbones).
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{.name = "Mish",
                          .kernel = CUVIL_UNARY_MISH,
                          .reference = [](double x, std::span<const float>) -> double {
                            return x *
                                   std::tanh(std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))));
                          },
                          .finiteAtZero = true};
} // namespace
extern const OpDefinition kMishOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
