// HardSwish: y = x * relu6(x + 3) / 6.
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"HardSwish", CUVIL_UNARY_HARDSWISH,
                              [](double x, const Node &) -> double {
                                return x * std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0;
                              }};
} // namespace
extern const OpDefinition kHardSwishOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
