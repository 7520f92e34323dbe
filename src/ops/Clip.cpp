// Clip: y = min(max(x, min), max) with optional scalar `min`/`max` inputs
// (the importer turns opset < 11 attributes into inputs). Fused kernels and
// the lowering need constant bounds; canonicalize turns run-time ones into
// Max and Min.
#include "Elementwise.h"

#include <algorithm>
#include <limits>

namespace cuvil::ops {
namespace {

// [min, max], absent bounds infinite; nullopt when one is not a constant scalar.
std::optional<std::vector<float>> bounds(const Node &node) {
  std::vector<float> result = {-std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::infinity()};
  for (size_t i : {1u, 2u}) {
    const Value *bound = node.input(i);
    if (!bound)
      continue;
    if (!bound->isConstant() || bound->constant().numElements() != 1)
      return std::nullopt;
    result[i - 1] = float(bound->constant().getDouble(0));
  }
  return result;
}

const UnaryTraits kTraits{.name = "Clip",
                          .kernel = CUVIL_UNARY_CLIP,
                          .reference = [](double x, std::span<const float> p) -> double {
                            return std::min(std::max(x, double(p[0])), double(p[1]));
                          },
                          .readParams = bounds,
                          .paramCount = 2,
                          .finiteAtZero = true,
                          .maxInputs = 3,
                          .integers = true};
} // namespace
extern const OpDefinition kClipOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
