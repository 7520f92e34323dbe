// StringConcat (opset 20): z = x's text followed by y's, elementwise with
// numpy broadcasting. The texts go to the frame's string storage, so one
// task makes them all (cuvil_string_concat).
#include "OpSupport.h"
#include "cuvil/kernels/Strings.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  for (int i = 0; i < 2; ++i)
    if (ctx.inputDType(i) != DType::String)
      return ctx.error("takes strings, not {} (input {})", dtypeName(ctx.inputDType(i)), i);
  Expected<Shape> shape = broadcastShapes(ctx.inputShape(0), ctx.inputShape(1));
  if (!shape)
    return ctx.error("{}", shape.status().message());
  ctx.setOutput(0, TensorType{DType::String, *shape});
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Shape &out = node.output(0)->type().shape;
  Expected<StridedSpace> space =
      makeStridedSpace(out, {broadcastStrides(node.input(0)->type().shape, out),
                             broadcastStrides(node.input(1)->type().shape, out)});
  CUVIL_TRY(space.status());
  ParamBlock<cuvil_binary_params> params;
  space->setShape(params, params->shape);
  space->setStrides(params, 0, params->a_strides);
  space->setStrides(params, 1, params->b_strides);
  return ctx.callKernel(kStringConcatKernel,
                        {KernelArg::stringServices(), KernelArg::pointer(node.input(0)),
                         KernelArg::pointer(node.input(1)), KernelArg::pointer(node.output(0)),
                         KernelArg::constant(space->rows()),
                         KernelArg::error({"out of memory for {} bytes of strings"}),
                         KernelArg::params(params)},
                        1);
}

} // namespace

extern const OpDefinition kStringConcatOp = {
    OpSchema{"StringConcat", 2, 2, 1, 1, {}, infer, nullptr}, lower};

} // namespace cuvil::ops
