// Equal: y = a == b, with numpy broadcasting.
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
constexpr BinaryTraits kTraits{"Equal", CUVIL_BINARY_EQUAL, BinaryKind::Comparison,
                               [](double a, double b) -> double { return a == b; },
                               [](int64_t a, int64_t b) -> int64_t { return a == b; }};
} // namespace
extern const OpDefinition kEqualOp = BinaryOp<kTraits>::definition();
} // namespace cuvil::ops
