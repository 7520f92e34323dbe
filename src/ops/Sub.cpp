// Sub: y = a - b, with numpy broadcasting.
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
constexpr BinaryTraits kTraits{
    "Sub",
    CUVIL_BINARY_SUB,
    BinaryKind::Arithmetic,
    [](double a, double b) -> double { return a - b; },
    [](int64_t a, int64_t b) -> int64_t { return a - b; },
    /*fuses=*/true,
    /*finiteAtZero=*/true,
    /*constantPadding=*/0,
    /*dimReference=*/[](const Dim &a, const Dim &b) -> std::optional<Dim> { return a - b; }};
} // namespace
extern const OpDefinition kSubOp = BinaryOp<kTraits>::definition();
} // namespace cuvil::ops
