// Reciprocal: y = 1 / x.
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"Reciprocal", CUVIL_UNARY_RECIPROCAL,
                              [](double x, const Node &) -> double { return 1.0 / x; }};
} // namespace
extern const OpDefinition kReciprocalOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
