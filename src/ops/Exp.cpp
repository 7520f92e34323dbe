// Exp: y = exp(x).
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"Exp", CUVIL_UNARY_EXP,
                              [](double x, const Node &) -> double { return std::exp(x); }};
} // namespace
extern const OpDefinition kExpOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
