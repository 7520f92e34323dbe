// Min: elementwise minimum of two inputs, with numpy broadcasting (the
// variadic ONNX form with other than two inputs is not supported).
#include "Elementwise.h"

#include <algorithm>

namespace cuvil::ops {
namespace {
constexpr BinaryTraits kTraits{
    "Min",
    CUVIL_BINARY_MIN,
    BinaryKind::Arithmetic,
    [](double a, double b) -> double { return std::min(a, b); },
    [](int64_t a, int64_t b) -> int64_t { return a < b ? a : b; },
    /*fuses=*/true,
    /*finiteAtZero=*/true,
    /*constantPadding=*/0,
    /*dimReference=*/[](const Dim &a, const Dim &b) -> std::optional<Dim> { return minDim(a, b); }};
} // namespace
extern const OpDefinition kMinOp = BinaryOp<kTraits>::definition();
} // namespace cuvil::ops
