// Max: elementwise maximum of two inputs, with numpy broadcasting (the
// variadic ONNX form with other than two inputs is not supported).
#include "Elementwise.h"

#include <algorithm>

namespace cuvil::ops {
namespace {
constexpr BinaryTraits kTraits{
    "Max",
    CUVIL_BINARY_MAX,
    BinaryKind::Arithmetic,
    [](double a, double b) -> double { return std::max(a, b); },
    [](int64_t a, int64_t b) -> int64_t { return a > b ? a : b; },
    /*fuses=*/true,
    /*finiteAtZero=*/true,
    /*constantPadding=*/0,
    /*dimReference=*/[](const Dim &a, const Dim &b) -> std::optional<Dim> { return maxDim(a, b); }};
} // namespace
extern const OpDefinition kMaxOp = BinaryOp<kTraits>::definition();
} // namespace cuvil::ops
