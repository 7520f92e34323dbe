#include "ReorderNCHWc.h"

namespace cuvil::ops {
namespace {

struct Sizes {
  int64_t N, C, spatial;
};

// The plain side's sizes; `channels` is the attribute of FromNCHWc.
Sizes plainSizes(const Shape &plain) {
  return {plain[0], plain[1], numElements(std::span(plain).subspan(2))};
}

} // namespace

Status inferReorder(InferContext &ctx, bool toBlocked) {
  const Shape &x = ctx.inputShape(0);
  if (ctx.inputDType(0) != DType::F32)
    return ctx.error("only f32 tensors are blocked");
  if (toBlocked) {
    if (x.size() < 3)
      return ctx.error("expects N, C and spatial dims");
    Shape out = {x[0], (x[1] + 15) / 16};
    out.insert(out.end(), x.begin() + 2, x.end());
    out.push_back(16);
    ctx.setOutput(0, TensorType{DType::F32, out});
    return Status::success();
  }
  int64_t channels = ctx.node().getInt("channels", 0);
  if (x.size() < 4 || x.back() != 16 || channels <= 0 || (channels + 15) / 16 != x[1])
    return ctx.error("[{}] is not a blocked tensor of {} channels", shapeToString(x), channels);
  Shape out = {x[0], channels};
  out.insert(out.end(), x.begin() + 2, x.end() - 1);
  ctx.setOutput(0, TensorType{DType::F32, out});
  return Status::success();
}

Status evalReorder(const Tensor &x, Tensor &y, bool toBlocked) {
  Sizes s = plainSizes(toBlocked ? x.shape() : y.shape());
  int64_t blocks = (s.C + 15) / 16;
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t cb = 0; cb < blocks; ++cb)
      for (int64_t i = 0; i < s.spatial; ++i)
        for (int64_t c = 0; c < 16; ++c) {
          int64_t blocked = ((n * blocks + cb) * s.spatial + i) * 16 + c;
          int64_t channel = cb * 16 + c;
          int64_t plain = (n * s.C + channel) * s.spatial + i;
          if (toBlocked)
            y.setDouble(blocked, channel < s.C ? x.getDouble(plain) : 0.0);
          else if (channel < s.C)
            y.setDouble(plain, x.getDouble(blocked));
        }
  return Status::success();
}

Status lowerReorder(const Node &node, LoweringContext &ctx, bool toBlocked) {
  Sizes s = plainSizes(toBlocked ? node.input(0)->type().shape : node.output(0)->type().shape);
  ctx.callKernel("cuvil_reorder_nchwc_f32",
                 {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.output(0)),
                  KernelArg::constant(s.C), KernelArg::constant(s.spatial),
                  KernelArg::constant(toBlocked ? 1 : 0)},
                 s.N * ((s.C + 15) / 16));
  return Status::success();
}

} // namespace cuvil::ops
