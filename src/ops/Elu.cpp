// Elu: y = x < 0 ? alpha (e^x - 1) : x.
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{.name = "Elu",
                          .kernel = CUVIL_UNARY_ELU,
                          .reference = [](double x, std::span<const float> p) -> double {
                            return x < 0 ? double(p[0]) * std::expm1(x) : x;
                          },
                          .params = {{"alpha", 1.0f}},
                          .finiteAtZero = true};
} // namespace
extern const OpDefinition kEluOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
