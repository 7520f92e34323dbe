// Ceil: y = ceil(x).
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"Ceil", CUVIL_UNARY_CEIL,
                              [](double x, const Node &) -> double { return std::ceil(x); }};
} // namespace
extern const OpDefinition kCeilOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
