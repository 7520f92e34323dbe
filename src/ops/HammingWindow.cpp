// HammingWindow: 25/46 - 21/46 cos(2 pi n / N) (WindowCommon.h).
#include "WindowCommon.h"

namespace cuvil::ops {
namespace {

constexpr CosineWindow kHamming = {25.0 / 46, 21.0 / 46, 0};

Status eval(const Node &node, std::span<const Tensor *const>, std::span<Tensor> out) {
  return evalCosineWindow(kHamming, node, out);
}

Status lower(const Node &node, LoweringContext &ctx) {
  return lowerCosineWindow(kHamming, node, ctx);
}

} // namespace

extern const OpDefinition kHammingWindowOp = {
    OpSchema{"HammingWindow", 1, 1, 1, 1, cosineWindowAttributes(), inferCosineWindow, eval,
             /*isView=*/false, /*foldsFromTypes=*/true},
    lower};

} // namespace cuvil::ops
