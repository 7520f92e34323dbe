// Softsign: y = x / (1 + |x|).
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Softsign",
    .kernel = CUVIL_UNARY_SOFTSIGN,
    .reference = [](double x, std::span<const float>) -> double { return x / (1.0 + std::abs(x)); },
    .finiteAtZero = true};
} // namespace
extern const OpDefinition kSoftsignOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
