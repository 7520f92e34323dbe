// HannWindow: sin^2(pi n / N) = 0.5 - 0.5 cos(2 pi n / N) (WindowCommon.h).
#include "WindowCommon.h"

namespace cuvil::ops {
namespace {

constexpr CosineWindow kHann = {0.5, 0.5, 0};

Status eval(const Node &node, std::span<const Tensor *const>, std::span<Tensor> out) {
  return evalCosineWindow(kHann, node, out);
}

Status lower(const Node &node, LoweringContext &ctx) { return lowerCosineWindow(kHann, node, ctx); }

} // namespace

extern const OpDefinition kHannWindowOp = {
    OpSchema{"HannWindow", 1, 1, 1, 1, cosineWindowAttributes(), inferCosineWindow, eval,
             /*isView=*/false, /*foldsFromTypes=*/true},
    lower};

} // namespace cuvil::ops
