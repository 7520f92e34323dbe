// Log: y = ln(x).
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"Log", CUVIL_UNARY_LOG,
                              [](double x, const Node &) -> double { return std::log(x); }};
} // namespace
extern const OpDefinition kLogOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
