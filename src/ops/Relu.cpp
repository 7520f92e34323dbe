// Relu: y = max(x, 0).
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
constexpr UnaryTraits kTraits{"Relu", CUVIL_UNARY_RELU,
                              [](double x, const Node &) { return x > 0 ? x : 0.0; }};
} // namespace
extern const OpDefinition kReluOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
