// BlackmanWindow: 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N) (WindowCommon.h).
#include "WindowCommon.h"

namespace cuvil::ops {
namespace {

constexpr CosineWindow kBlackman = {0.42, 0.5, 0.08};

Status eval(const Node &node, std::span<const Tensor *const>, std::span<Tensor> out) {
  return evalCosineWindow(kBlackman, node, out);
}

Status lower(const Node &node, LoweringContext &ctx) {
  return lowerCosineWindow(kBlackman, node, ctx);
}

} // namespace

extern const OpDefinition kBlackmanWindowOp = {
    OpSchema{"BlackmanWindow", 1, 1, 1, 1, cosineWindowAttributes(), inferCosineWindow, eval,
             /*isView=*/false, /*foldsFromTypes=*/true},
    lower};

} // namespace cuvil::ops
