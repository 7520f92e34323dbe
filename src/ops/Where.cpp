// Where: y = cond ? x : y elementwise, all three broadcast together.
#include "OpSupport.h"
#include "cuvil/kernels/Elementwise.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  if (ctx.inputDType(0) != DType::Bool)
    return ctx.error("the condition must be bool, got {}", dtypeName(ctx.inputDType(0)));
  if (ctx.inputDType(1) != ctx.inputDType(2))
    return ctx.error("the branches differ in type: {} and {}", dtypeName(ctx.inputDType(1)),
                     dtypeName(ctx.inputDType(2)));
  Expected<Shape> partial = broadcastShapes(ctx.inputShape(0), ctx.inputShape(1));
  CUVIL_TRY(partial.status());
  Expected<Shape> out = broadcastShapes(*partial, ctx.inputShape(2));
  CUVIL_TRY(out.status());
  ctx.setOutput(0, TensorType{ctx.inputDType(1), *out});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Shape &shape = out[0].shape();
  std::vector<int64_t> sc = broadcastStrides(in[0]->shape(), shape);
  size_t elementSize = dtypeSize(out[0].dtype());
  // Select through the x/y broadcast, then read the condition with its own strides.
  forEachBroadcast(shape, in[1]->shape(), in[2]->shape(), [&](int64_t i, int64_t ix, int64_t iy) {
    int64_t rest = i, ic = 0;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      ic += (rest % shape[size_t(d)]) * sc[size_t(d)];
      rest /= shape[size_t(d)];
    }
    const Tensor &chosen = in[0]->getInt(ic) ? *in[1] : *in[2];
    std::copy_n(chosen.bytes() + (in[0]->getInt(ic) ? ix : iy) * int64_t(elementSize), elementSize,
                out[0].mutableBytes() + i * int64_t(elementSize));
  });
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Shape &out = node.output(0)->type().shape;
  Expected<StridedSpace> space =
      makeStridedSpace(out, {broadcastStrides(node.input(0)->type().shape, out),
                             broadcastStrides(node.input(1)->type().shape, out),
                             broadcastStrides(node.input(2)->type().shape, out)});
  CUVIL_TRY(space.status());
  Expected<const KernelRef *> kernel = whereKernel(dtypeSize(node.output(0)->type().dtype));
  CUVIL_TRY(kernel.status());
  cuvil_where_params params{};
  space->copyShape(params.shape);
  space->copyStrides(0, params.cond_strides);
  space->copyStrides(1, params.a_strides);
  space->copyStrides(2, params.b_strides);
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
                         KernelArg::pointer(node.input(2)), KernelArg::pointer(node.output(0)),
                         KernelArg::params(params)},
                        space->rows());
}

} // namespace

extern const OpDefinition kWhereOp = {OpSchema{"Where", 3, 3, 1, 1, {}, infer, eval}, lower};

} // namespace cuvil::ops
