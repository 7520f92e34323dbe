// Neg: y = -x.
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"Neg", CUVIL_UNARY_NEG,
                              [](double x, const Node &) -> double { return -x; }};
} // namespace
extern const OpDefinition kNegOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
