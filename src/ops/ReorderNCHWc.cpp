#include "ReorderNCHWc.h"

#include "ChannelBlock.h"

namespace cuvil::ops {
namespace {

// Batch and spatial extents may be symbolic; channels and the block are
// constants (layout-nchwc blocks only those).
struct Sizes {
  Dim N;
  int64_t C;
  Dim spatial;
  int64_t K;
  int64_t blocks() const { return (C + K - 1) / K; }
};

// The plain side's sizes and the blocked side's block; `channels` is the
// attribute of FromNCHWc.
Sizes sizes(const Shape &plain, const Shape &blocked) {
  return {plain[0], plain[1].constant(), numElements(std::span(plain).subspan(2)),
          blocked.back().constant()};
}

} // namespace

Status inferReorder(InferContext &ctx, bool toBlocked) {
  const Shape &x = ctx.inputShape(0);
  if (ctx.inputDType(0) != DType::F32)
    return ctx.error("only f32 tensors are blocked");
  if (toBlocked) {
    int64_t block = ctx.node().getInt("block", 16);
    if (x.size() < 3)
      return ctx.error("expects N, C and spatial dims");
    if (!isChannelBlock(block))
      return ctx.error("block {} is not 16 or 8", block);
    if (!x[1].isConstant())
      return ctx.error("channels {} are not a constant", x[1]);
    Shape out = {x[0], ceilDiv(x[1], block)};
    out.insert(out.end(), x.begin() + 2, x.end());
    out.push_back(block);
    ctx.setOutput(0, TensorType{DType::F32, out});
    return Status::success();
  }
  int64_t channels = ctx.node().getInt("channels", 0);
  if (x.size() < 4 || !isChannelBlock(x.back()) || channels <= 0 ||
      !(ceilDiv(channels, x.back()) == x[1]))
    return ctx.error("[{}] is not a blocked tensor of {} channels", shapeToString(x), channels);
  Shape out = {x[0], channels};
  out.insert(out.end(), x.begin() + 2, x.end() - 1);
  ctx.setOutput(0, TensorType{DType::F32, out});
  return Status::success();
}

Status evalReorder(const Tensor &x, Tensor &y, bool toBlocked) {
  Sizes s = toBlocked ? sizes(x.shape(), y.shape()) : sizes(y.shape(), x.shape());
  const int64_t N = s.N.constant(), spatial = s.spatial.constant();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t cb = 0; cb < s.blocks(); ++cb)
      for (int64_t i = 0; i < spatial; ++i)
        for (int64_t c = 0; c < s.K; ++c) {
          int64_t blocked = ((n * s.blocks() + cb) * spatial + i) * s.K + c;
          int64_t channel = cb * s.K + c;
          int64_t plain = (n * s.C + channel) * spatial + i;
          if (toBlocked)
            y.setDouble(blocked, channel < s.C ? x.getDouble(plain) : 0.0);
          else if (channel < s.C)
            y.setDouble(plain, x.getDouble(blocked));
        }
  return Status::success();
}

Status lowerReorder(const Node &node, LoweringContext &ctx, bool toBlocked) {
  const Shape &x = node.input(0)->type().shape, &y = node.output(0)->type().shape;
  Sizes s = toBlocked ? sizes(x, y) : sizes(y, x);
  return ctx.callKernel(kReorderKernels.forBlock(s.K),
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.output(0)),
                         KernelArg::constant(s.C), KernelArg::constant(s.spatial),
                         KernelArg::constant(toBlocked ? 1 : 0)},
                        s.N * s.blocks());
}

} // namespace cuvil::ops
