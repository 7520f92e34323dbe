// Clip: y = min(max(x, min), max) with optional scalar `min`/`max` inputs
// (the importer turns opset < 11 attributes into inputs). The bounds must be
// compile-time constants.
#include "Elementwise.h"

#include <algorithm>
#include <limits>

namespace cuvil::ops {
namespace {

Status bounds(const Node &node, float &low, float &high) {
  low = -std::numeric_limits<float>::infinity();
  high = std::numeric_limits<float>::infinity();
  for (size_t i : {1u, 2u}) {
    const Value *bound = node.input(i);
    if (!bound)
      continue;
    if (!bound->isConstant() || bound->constant().numElements() != 1)
      return Status::error(
          fmt::format("the {} bound must be a constant scalar", i == 1 ? "min" : "max"));
    (i == 1 ? low : high) = float(bound->constant().getDouble(0));
  }
  return Status::success();
}

constexpr UnaryTraits kTraits{"Clip", CUVIL_UNARY_CLIP,
                              [](double x, const Node &node) {
                                float low = 0, high = 0;
                                (void)bounds(node, low, high);
                                return std::min(std::max(x, double(low)), double(high));
                              },
                              bounds, /*maxInputs=*/3};
} // namespace
extern const OpDefinition kClipOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
