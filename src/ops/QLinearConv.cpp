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
#include "QuantizeCommon.h"

namespace cuvil::ops {
namespace {

constexpr IntegerConvInputs kInputs{0, 3, 2, 5, 1, 4};
constexpr size_t kOutScale = 6, kOutZero = 7, kBias = 8;

Status infer(InferContext &ctx) {
  DType result = ctx.inputDType(kOutZero);
  if (result != DType::U8 && result != DType::I8)
    return ctx.error("y_zero_point is {}: u8 or i8 are supported", dtypeName(result));
  if (ctx.inputDType(kOutScale) != DType::F32)
    return ctx.error("y_scale is {}: f32 is supported", dtypeName(ctx.inputDType(kOutScale)));
  CUVIL_TRY(checkScalarInput(ctx, kOutScale, "y_scale"));
  CUVIL_TRY(checkScalarInput(ctx, kOutZero, "y_zero_point"));
  CUVIL_TRY(inferIntegerConv(ctx, kInputs, result));
  if (ctx.hasInput(kBias) &&
      (ctx.inputDType(kBias) != DType::I32 || ctx.inputShape(kBias) != Shape{ctx.inputShape(3)[0]}))
    return ctx.error("the bias is {}: it must be i32[{}]", ctx.inputType(kBias).str(),
                     ctx.inputShape(3)[0].str());
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &wScale = *in[4];
  const Tensor *bias = in.size() > kBias ? in[kBias] : nullptr;
  const float xScale = float(in[1]->getDouble(0)), outScale = float(in[kOutScale]->getDouble(0));
  const int64_t outZero = in[kOutZero]->getInt(0);
  const int64_t wScaleStride = wScale.numElements() == 1 ? 0 : 1;
  const QuantizedRange range = *quantizedRange(out[0].dtype());
  return evalIntegerConv(node, kInputs, in, [&](int64_t flat, int32_t acc, int64_t m) {
    float multiplier = xScale * float(wScale.getDouble(m * wScaleStride)) / outScale;
    auto value = int32_t(uint32_t(acc) + uint32_t(bias ? bias->getInt(m) : 0));
    out[0].setInt(flat, roundToQuantized(float(value) * multiplier, outZero, range));
  });
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0), *w = node.input(3), *y = node.output(0);
  Expected<IntegerConvCall> call = integerConvCall(node, ctx, kInputs);
  CUVIL_TRY(call.status());
  Expected<const KernelRef *> kernel =
      requantizedConvKernel(x->type().dtype, w->type().dtype, y->type().dtype);
  CUVIL_TRY(kernel.status());
  std::vector<KernelArg> args;
  for (size_t i = 0; i < 8; ++i)
    args.push_back(KernelArg::pointer(node.input(i)));
  args.push_back(KernelArg::optionalPointer(node.input(kBias)));
  args.push_back(KernelArg::pointer(y));
  args.push_back(KernelArg::params(call->params));
  return ctx.callKernel(**kernel, std::move(args), call->tasks, call->flops);
}

} // namespace

extern const OpDefinition kQLinearConvOp = {
    OpSchema{"QLinearConv", 8, 9, 1, 1, convAttributes(), infer, eval}, lower};

} // namespace cuvil::ops
