// LeakyRelu: y = x < 0 ? alpha * x : x.
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{.name = "LeakyRelu",
                          .kernel = CUVIL_UNARY_LEAKYRELU,
                          .reference = [](double x, std::span<const float> p) -> double {
                            return x < 0 ? double(p[0]) * x : x;
                          },
                          .params = {{"alpha", 0.01f}},
                          .finiteAtZero = true};
} // namespace
extern const OpDefinition kLeakyReluOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
