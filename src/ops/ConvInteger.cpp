// ConvInteger: Conv (1-D and 2-D; groups, strides, dilations, pads,
// auto_pad) of u8/i8 data and weights less their zero points (optional, 0
// by default; the image's per tensor, the weights' per tensor or per output
// channel), as i32 with wrapping accumulation. The padding adds nothing
// (it is the zero point, as in ONNX Runtime).
#include "IntegerConvCommon.h"
#include "IntegerGemmCommon.h"
#include "Kernels.h"

namespace cuvil::ops {
namespace {

constexpr IntegerConvInputs kInputs{0, 1, 2, 3, std::nullopt, std::nullopt};

Status infer(InferContext &ctx) { return inferIntegerConv(ctx, kInputs, DType::I32); }

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  return evalIntegerConv(node, kInputs, in,
                         [&](int64_t flat, int32_t acc, int64_t) { out[0].setInt(flat, acc); });
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0), *w = node.input(1);
  Expected<IntegerConvCall> call = integerConvCall(node, ctx, kInputs);
  CUVIL_TRY(call.status());
  Expected<const KernelRef *> kernel = integerConvKernel(x->type().dtype, w->type().dtype);
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(x), KernelArg::pointer(w),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::optionalPointer(node.input(3)),
                         KernelArg::pointer(node.output(0)), KernelArg::params(call->params)},
                        call->tasks, call->flops);
}

} // namespace

extern const OpDefinition kConvIntegerOp = {
    .schema = OpSchema{"ConvInteger", 2, 4, 1, 1, convAttributes(), infer, eval},
    .lower = lower,
    .dotProducts = integerDotProducts};

} // namespace cuvil::ops
