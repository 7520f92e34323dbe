// Sigmoid: y = 1 / (1 + exp(-x)).
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"Sigmoid", CUVIL_UNARY_SIGMOID, [](double x, const Node &) -> double {
                                return 1.0 / (1.0 + std::exp(-x));
                              }};
} // namespace
extern const OpDefinition kSigmoidOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
