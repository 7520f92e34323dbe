// DequantizeLinear: y = (x - x_zero_point) * x_scale in f32, per tensor, per
// `axis`, or in blocks of `block_size` along it (opset 21); x is u8, i8,
// u16, i16 or i32 (a bias, whose zero point is 0), the zero point of x's
// type. y has the scale's type, f32 (`output_dtype`, opset 23, may only
// name it).
#include "Kernels.h"
#include "QuantizeCommon.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  DType type = ctx.inputDType(0);
  if (!quantizedRange(type, /*withI32=*/true))
    return ctx.error("cannot dequantize {}: u8, i8, u16, i16 and i32 are supported",
                     dtypeName(type));
  if (ctx.inputDType(1) != DType::F32)
    return ctx.error("x_scale is {}: f32 is supported", dtypeName(ctx.inputDType(1)));
  int64_t outputType = ctx.node().getInt("output_dtype");
  if (outputType != 0 && outputType != dtypeOnnxCode(DType::F32))
    return ctx.error("output_dtype {} is not the scale's type (f32)", outputType);
  CUVIL_TRY(quantLayout(ctx.node(), ctx.inputShape(0), ctx.inputShape(1), "x_scale").status());
  CUVIL_TRY(checkZeroPoint(ctx, 2, 1, type));
  ctx.setOutput(0, TensorType{DType::F32, ctx.inputShape(0)});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0], &scale = *in[1];
  const Tensor *zeroPoint = in.size() > 2 ? in[2] : nullptr;
  Expected<QuantLayout> layout = quantLayout(node, x.shape(), scale.shape(), "x_scale");
  CUVIL_TRY(layout.status());
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    int64_t entry = layout->entry(i);
    // The i32 difference wraps, as the kernel's.
    auto difference =
        int32_t(uint32_t(x.getInt(i)) - uint32_t(zeroPoint ? zeroPoint->getInt(entry) : 0));
    out[0].setDouble(i, float(difference) * float(scale.getDouble(entry)));
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  Expected<QuantLayout> layout =
      quantLayout(node, x->type().shape, node.input(1)->type().shape, "x_scale");
  CUVIL_TRY(layout.status());
  Expected<const KernelRef *> kernel = dequantizeKernel(x->type().dtype);
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(x), KernelArg::pointer(node.input(1)),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::pointer(node.output(0)),
                         KernelArg::params(layout->kernelParams())},
                        layout->tasks());
}

} // namespace

extern const OpDefinition kDequantizeLinearOp = {
    OpSchema{"DequantizeLinear", 2, 3, 1, 1, quantAttributes(), infer, eval}, lower};

} // namespace cuvil::ops
