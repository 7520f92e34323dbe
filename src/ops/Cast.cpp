// Cast: converts elements to the type `to` (an ONNX TensorProto code).
// Float to integer truncates toward zero; anything to bool is `!= 0`.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Expected<DType> targetType(const Node &node) {
  std::optional<DType> to = dtypeFromOnnxCode(int(node.getInt("to", 0)));
  if (!to)
    return Status::error(fmt::format("cannot cast to ONNX type {}", node.getInt("to", 0)));
  return *to;
}

Status infer(InferContext &ctx) {
  Expected<DType> to = targetType(ctx.node());
  CUVIL_TRY(to.status());
  ctx.setOutput(0, TensorType{*to, ctx.inputShape(0)});
  if (isSignedInt(*to)) // dims as integers; as floats they stay data
    forwardDimValues(ctx);
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  out[0] = in[0]->castTo(out[0].dtype());
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  DType from = node.input(0)->type().dtype, to = node.output(0)->type().dtype;
  if (from == to)
    return lowerViewOrCopy(node, ctx);
  Expected<const KernelRef *> kernel = castKernel(from, to);
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.output(0))},
                        node.output(0)->type().numElements());
}

} // namespace

extern const OpDefinition kCastOp = {
    OpSchema{"Cast",
             1,
             1,
             1,
             1,
             {{"to", AttrKind::Int, std::nullopt, /*required=*/true}, {"saturate", AttrKind::Int}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
