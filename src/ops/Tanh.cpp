// Tanh: y = tanh(x).
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"Tanh", CUVIL_UNARY_TANH,
                              [](double x, const Node &) -> double { return std::tanh(x); }};
} // namespace
extern const OpDefinition kTanhOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
