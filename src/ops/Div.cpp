// Div: y = a / b (integers truncate toward zero), with numpy broadcasting.
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
constexpr BinaryTraits kTraits{"Div", CUVIL_BINARY_DIV, BinaryKind::Arithmetic,
                               [](double a, double b) -> double { return a / b; },
                               [](int64_t a, int64_t b) -> int64_t { return b == 0 ? 0 : a / b; },
                               /*fuses=*/true,
                               /*finiteAtZero=*/false,
                               /*constantPadding=*/1,
                               /*dimReference=*/
                               [](const Dim &a, const Dim &b) -> std::optional<Dim> {
                                 if (a.min() < 0 || b.min() <= 0)
                                   return std::nullopt;
                                 return floorDiv(a, b);
                               }};
} // namespace
extern const OpDefinition kDivOp = BinaryOp<kTraits>::definition();
} // namespace cuvil::ops
