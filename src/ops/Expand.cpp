// Expand: broadcasts the input to the constant `shape` input (numpy rules:
// the result is broadcast(input shape, shape)). A strided copy with stride 0
// along broadcast dims.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  Expected<std::vector<Dim>> target = dimsInput(ctx.node(), 1, "the target shape");
  CUVIL_TRY(target.status());
  Expected<Shape> out = broadcastShapes(ctx.inputShape(0), *target);
  CUVIL_TRY(out.status());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), *out});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Shape &shape = out[0].shape();
  copyStrided(*in[0], 0, staticBroadcastStrides(in[0]->shape(), shape), out[0], 0,
              staticStrides(shape), out[0].dims());
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Shape &out = node.output(0)->type().shape;
  return emitStridedCopy(ctx, node.input(0), 0, broadcastStrides(node.input(0)->type().shape, out),
                         node.output(0), 0, contiguousStrides(out), out);
}

} // namespace

extern const OpDefinition kExpandOp = {OpSchema{"Expand", 2, 2, 1, 1, {}, infer, eval}, lower};

} // namespace cuvil::ops
