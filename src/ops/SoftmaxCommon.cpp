#include "SoftmaxCommon.h"

#include <cmath>

namespace cuvil::ops {
namespace {

Expected<AxisSplit> split(const Node &node, const Shape &shape) {
  return splitAtAxis(shape, node.getInt("axis"));
}

} // namespace

Status inferSoftmax(InferContext &ctx) {
  CUVIL_TRY(split(ctx.node(), ctx.inputShape(0)).status());
  if (!isFloat(ctx.inputDType(0)))
    return ctx.error("expects a float tensor");
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Status evalSoftmax(const Node &node, const Tensor &x, Tensor &y, bool log) {
  Expected<AxisSplit> s = split(node, x.shape());
  CUVIL_TRY(s.status());
  const int64_t outer = s->outer.constant(), axis = s->axisDim.constant();
  const int64_t inner = s->inner.constant();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t a) { return (o * axis + a) * inner + i; };
      double maxValue = -INFINITY, sum = 0;
      for (int64_t a = 0; a < axis; ++a)
        maxValue = std::max(maxValue, x.getDouble(at(a)));
      for (int64_t a = 0; a < axis; ++a)
        sum += std::exp(x.getDouble(at(a)) - maxValue);
      for (int64_t a = 0; a < axis; ++a) {
        double shifted = x.getDouble(at(a)) - maxValue;
        y.setDouble(at(a), log ? shifted - std::log(sum) : std::exp(shifted) / sum);
      }
    }
  return Status::success();
}

Status lowerSoftmax(const Node &node, LoweringContext &ctx, bool log) {
  if (node.input(0)->type().dtype != DType::F32)
    return Status::error("only f32 is supported");
  Expected<AxisSplit> s = split(node, node.input(0)->type().shape);
  CUVIL_TRY(s.status());
  return ctx.callKernel(kSoftmaxKernel,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.output(0)),
                         KernelArg::constant(s->axisDim), KernelArg::constant(s->inner),
                         KernelArg::constant(log ? 1 : 0)},
                        s->outer * s->inner);
}

} // namespace cuvil::ops
