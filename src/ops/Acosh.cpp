// Acosh: y = acosh(x); nan below 1.
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {
const UnaryTraits kTraits{
    .name = "Acosh",
    .kernel = CUVIL_UNARY_ACOSH,
    .reference = [](double x, std::span<const float>) -> double { return std::acosh(x); },
    .finiteAtZero = false,
};
} // namespace
extern const OpDefinition kAcoshOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
