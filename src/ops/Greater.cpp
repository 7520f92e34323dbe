// Greater: y = a > b, with numpy broadcasting.
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
constexpr BinaryTraits kTraits{"Greater", CUVIL_BINARY_GREATER, BinaryKind::Comparison,
                               [](double a, double b) -> double { return a > b; },
                               [](int64_t a, int64_t b) -> int64_t { return a > b; }};
} // namespace
extern const OpDefinition kGreaterOp = BinaryOp<kTraits>::definition();
} // namespace cuvil::ops
