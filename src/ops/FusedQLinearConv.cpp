// cuvil.FusedQLinearConv: QLinearConv whose result only a DequantizeLinear
// (with its scale and zero point) read, made by fuse-epilogues with the
// residual Add and activation that followed:
//   q = QLinearConv(x, x_scale, x_zero, w, w_scale, w_zero, y_scale, y_zero, bias)
//   y = activation(float(q - y_zero) * y_scale + residual)
// and, where a QuantizeLinear read y and the residual was itself a
// DequantizeLinear of an 8-bit value (a residual stream kept in 8 bits),
// with both absorbed, the epilogue in the quantized domain:
//   y = saturate(round_half_even(activation(float(q - y_zero) * y_scale
//                + float(r - r_zero) * r_scale) * (1 / z_scale)) + z_zero)
// Inputs: QLinearConv's nine (the bias optional), then an optional
// residual shaped like y (f32, or 8-bit as y_zero with r_scale, r_zero at
// 10 and 11), then z_scale, z_zero at 12 and 13 for an 8-bit result (of
// y_zero's type, and then the residual is 8-bit too). Attributes: Conv's plus
// `activation` and `activation_params` (FusedActivation.h). The value is
// exactly the unfused graph's (q is still rounded and saturated), but for
// the 8-bit result: multiplied by the inverse scale where QuantizeLinear
// divides (a division per element is a fifth of a small convolution's
// time), it may round one step apart where the quotient lies within an ulp
// of a tie. The result skips the intermediate tensors and the passes over
// them.
#include "FusedActivation.h"
#include "IntegerConvCommon.h"
#include "IntegerGemmCommon.h"
#include "Kernels.h"
#include "QuantizeCommon.h"

namespace cuvil::ops {
namespace {

constexpr size_t kResidual = 9, kResidualScale = 10, kResidualZero = 11, kResultScale = 12,
                 kResultZero = 13;

bool quantizedResult(const Node &node) { return node.hasInput(kResultZero); }

// A scalar (or one-element) input of `dtype`.
Status checkScalar(const InferContext &ctx, size_t i, DType dtype, const char *what) {
  if (!ctx.hasInput(i))
    return ctx.error("the {} (input {}) is missing", what, i);
  if (ctx.inputDType(i) != dtype || !ctx.inputType(i).numElements().is(1))
    return ctx.error("the {} is {}, not one {}", what, ctx.inputType(i).str(), dtypeName(dtype));
  return Status::success();
}

Status infer(InferContext &ctx) {
  const bool quantized = quantizedResult(ctx.node());
  const DType quantizedType = ctx.inputDType(kRequantizedOutZero);
  CUVIL_TRY(inferRequantizedConv(ctx, quantized ? quantizedType : DType::F32));
  CUVIL_TRY(fusedActivation(ctx.node()).status());
  if (quantized) {
    CUVIL_TRY(checkScalar(ctx, kResultScale, DType::F32, "result's scale"));
    CUVIL_TRY(checkScalar(ctx, kResultZero, quantizedType, "result's zero point"));
  } else if (ctx.hasInput(kResultScale)) {
    return ctx.error("a result scale without a zero point");
  }
  const bool quantizedResidual = ctx.hasInput(kResidualScale) || ctx.hasInput(kResidualZero);
  if (quantizedResidual && !quantized)
    return ctx.error("an 8-bit residual needs an 8-bit result");
  if (!ctx.hasInput(kResidual)) {
    if (quantizedResidual)
      return ctx.error("a residual scale without a residual");
    return Status::success();
  }
  if (quantized && !quantizedResidual)
    return ctx.error(
        "an 8-bit result needs an 8-bit residual (its scale and zero point at 10, 11)");
  TensorType expected = ctx.node().output(0)->type();
  if (quantizedResidual) {
    CUVIL_TRY(checkScalar(ctx, kResidualScale, DType::F32, "residual's scale"));
    CUVIL_TRY(checkScalar(ctx, kResidualZero, quantizedType, "residual's zero point"));
  } else {
    expected.dtype = DType::F32;
  }
  if (ctx.inputType(kResidual) != expected)
    return ctx.error("the residual is {}, expected {}", ctx.inputType(kResidual).str(),
                     expected.str());
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  auto input = [&](size_t i) { return in.size() > i && node.hasInput(i) ? in[i] : nullptr; };
  const Tensor *residual = input(kResidual);
  const bool quantized = quantizedResult(node),
             quantizedResidual = input(kResidualScale) != nullptr;
  const float outScale = float(in[kRequantizedOutScale]->getDouble(0));
  const int64_t outZero = in[kRequantizedOutZero]->getInt(0);
  const float residualScale = quantizedResidual ? float(in[kResidualScale]->getDouble(0)) : 0.0f;
  const int64_t residualZero = quantizedResidual ? in[kResidualZero]->getInt(0) : 0;
  const float inverseResultScale = quantized ? 1.0f / float(in[kResultScale]->getDouble(0)) : 1.0f;
  const int64_t resultZero = quantized ? in[kResultZero]->getInt(0) : 0;
  const std::optional<QuantizedRange> range = quantizedRange(node.output(0)->type().dtype);
  return evalRequantizedConv(node, in, [&](int64_t flat, int64_t q, int64_t) {
    float value = float(q - outZero) * outScale;
    if (quantizedResidual)
      value += float(residual->getInt(flat) - residualZero) * residualScale;
    else if (residual)
      value += residual->data<float>()[flat];
    value = float(activation->apply(value));
    if (quantized)
      out[0].setInt(flat, roundToQuantized(value * inverseResultScale, resultZero, *range));
    else
      out[0].setDouble(flat, value);
  });
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  const Value *x = node.input(0), *w = node.input(3);
  Expected<IntegerConvCall> call = integerConvCall(node, ctx, kRequantizedConvInputs);
  CUVIL_TRY(call.status());
  const DType xType = x->type().dtype, wType = w->type().dtype;
  const DType yType = node.input(kRequantizedOutZero)->type().dtype;
  const bool quantized = quantizedResult(node);
  Expected<const KernelRef *> kernel = quantized ? quantizedEpilogueConvKernel(xType, wType, yType)
                                                 : dequantizedConvKernel(xType, wType, yType);
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_qconv_dq_params> params;
  params.embed(params->conv, call->params);
  params->activation = activation->kernel();
  std::vector<KernelArg> args;
  for (size_t i = 0; i < 8; ++i)
    args.push_back(KernelArg::pointer(node.input(i)));
  args.push_back(KernelArg::optionalPointer(node.input(kRequantizedBias)));
  args.push_back(KernelArg::optionalPointer(node.input(kResidual)));
  if (quantized)
    for (size_t i : {kResidualScale, kResidualZero, kResultScale, kResultZero})
      args.push_back(KernelArg::optionalPointer(node.input(i)));
  args.push_back(KernelArg::pointer(node.output(0)));
  args.push_back(KernelArg::params(params));
  return ctx.callKernel(**kernel, std::move(args), call->tasks, call->flops);
}

} // namespace

extern const OpDefinition kFusedQLinearConvOp = {
    .schema = OpSchema{"cuvil.FusedQLinearConv", 8, 14, 1, 1,
                       convAttributes({{"activation", AttrKind::String},
                                       {"activation_params", AttrKind::Floats}}),
                       infer, eval},
    .lower = lower,
    .dotProducts = integerDotProducts};

} // namespace cuvil::ops
