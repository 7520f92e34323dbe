// Floor: y = floor(x).
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"Floor", CUVIL_UNARY_FLOOR,
                              [](double x, const Node &) -> double { return std::floor(x); }};
} // namespace
extern const OpDefinition kFloorOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
