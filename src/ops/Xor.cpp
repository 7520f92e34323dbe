// Xor: y = a xor b, with numpy broadcasting.
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
constexpr BinaryTraits kTraits{
    "Xor", CUVIL_BINARY_XOR, BinaryKind::Logical,
    [](double a, double b) -> double { return (a != 0) != (b != 0); },
    [](int64_t a, int64_t b) -> int64_t { return (a != 0) != (b != 0); }};
} // namespace
extern const OpDefinition kXorOp = BinaryOp<kTraits>::definition();
} // namespace cuvil::ops
