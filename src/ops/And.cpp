// And: y = a and b, with numpy broadcasting.
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
constexpr BinaryTraits kTraits{"And", CUVIL_BINARY_AND, BinaryKind::Logical,
                               [](double a, double b) -> double { return a != 0 && b != 0; },
                               [](int64_t a, int64_t b) -> int64_t { return a != 0 && b != 0; }};
} // namespace
extern const OpDefinition kAndOp = BinaryOp<kTraits>::definition();
} // namespace cuvil::ops
