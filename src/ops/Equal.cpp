// Equal: y = a == b, with numpy broadcasting.
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
constexpr BinaryTraits kTraits{"Equal", CUVIL_BINARY_EQUAL, BinaryKind::Comparison,
                               [](double a, double b) -> double { return a == b; },
                               [](int64_t a, int64_t b) -> int64_t { return a == b; },
                               /*fuses=*/false,
                               /*finiteAtZero=*/false,
                               /*constantPadding=*/0,
                               // Equal(shape, -1) in exported Expand targets: decided where the
                               // bounds of the dims are apart.
                               /*dimReference=*/
                               [](const Dim &a, const Dim &b) -> std::optional<Dim> {
                                 if (a == b)
                                   return Dim(1);
                                 if (a.max() < b.min() || b.max() < a.min())
                                   return Dim(0);
                                 return std::nullopt;
                               }};
} // namespace
extern const OpDefinition kEqualOp = BinaryOp<kTraits>::definition();
} // namespace cuvil::ops
