// Abs: y = |x|.
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"Abs", CUVIL_UNARY_ABS,
                              [](double x, const Node &) -> double { return std::fabs(x); }};
} // namespace
extern const OpDefinition kAbsOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
