// PRelu: y = x < 0 ? slope x : x, the slope broadcast to x (per channel:
// shape [C, 1, 1]).
#include "Elementwise.h"

namespace cuvil::ops {
namespace {
constexpr BinaryTraits kTraits{
    "PRelu", CUVIL_BINARY_PRELU, BinaryKind::Arithmetic,
    [](double x, double slope) -> double { return x < 0 ? slope * x : x; },
    [](int64_t x, int64_t slope) -> int64_t {
      return x < 0 ? int64_t(uint64_t(x) * uint64_t(slope)) : x;
    }};
} // namespace
extern const OpDefinition kPReluOp = BinaryOp<kTraits>::definition();
} // namespace cuvil::ops
