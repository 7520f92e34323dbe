// GreaterOrEqual: y = a >= b, with numpy broadcasting.
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
constexpr BinaryTraits kTraits{"GreaterOrEqual", CUVIL_BINARY_GREATER_EQUAL, BinaryKind::Comparison,
                               [](double a, double b) -> double { return a >= b; },
                               [](int64_t a, int64_t b) -> int64_t { return a >= b; }};
} // namespace
extern const OpDefinition kGreaterOrEqualOp = BinaryOp<kTraits>::definition();
} // namespace cuvil::ops
