// QLinearConv: Conv (1-D and 2-D; groups, strides, dilations, pads,
// auto_pad) of quantized u8/i8 data and weights, plus an optional i32 bias
// (quantized with scale x_scale * w_scale and zero point 0), requantized:
//   y = saturate(round_half_even(float(acc + bias) * (x_scale * w_scale / y_scale))
//                + y_zero_point)
// accumulating in i32 and scaling in f32 as ONNX Runtime does. The image's
// and output's scale and zero point are per tensor, the weights' per tensor
// or per output channel; y has y_zero_point's type.
#include "IntegerConvCommon.h"
#include "IntegerGemmCommon.h"
#include "Kernels.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  return inferRequantizedConv(ctx, ctx.inputDType(kRequantizedOutZero));
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  return evalRequantizedConv(node, in,
                             [&](int64_t flat, int64_t q, int64_t) { out[0].setInt(flat, q); });
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0), *w = node.input(3), *y = node.output(0);
  Expected<IntegerConvCall> call = integerConvCall(node, ctx, kRequantizedConvInputs);
  CUVIL_TRY(call.status());
  Expected<const KernelRef *> kernel =
      requantizedConvKernel(x->type().dtype, w->type().dtype, y->type().dtype);
  CUVIL_TRY(kernel.status());
  std::vector<KernelArg> args;
  for (size_t i = 0; i < 8; ++i)
    args.push_back(KernelArg::pointer(node.input(i)));
  args.push_back(KernelArg::optionalPointer(node.input(kRequantizedBias)));
  args.push_back(KernelArg::pointer(y));
  args.push_back(KernelArg::params(call->params));
  return ctx.callKernel(**kernel, std::move(args), call->tasks, call->flops);
}

} // namespace

extern const OpDefinition kQLinearConvOp = {
    .schema = OpSchema{"QLinearConv", 8, 9, 1, 1, convAttributes(), infer, eval},
    .lower = lower,
    .dotProducts = integerDotProducts};

} // namespace cuvil::ops
