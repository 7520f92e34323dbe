// Sqrt: y = sqrt(x).
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"Sqrt", CUVIL_UNARY_SQRT,
                              [](double x, const Node &) -> double { return std::sqrt(x); }};
} // namespace
extern const OpDefinition kSqrtOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
