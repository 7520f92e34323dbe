// Erf: y = erf(x).
#include "Elementwise.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"Erf", CUVIL_UNARY_ERF,
                              [](double x, const Node &) -> double { return std::erf(x); }};
} // namespace
extern const OpDefinition kErfOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
