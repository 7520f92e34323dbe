// cuvil.FusedQLinearConv: QLinearConv whose result only a DequantizeLinear
// (with its scale and zero point) read, made by fuse-epilogues with the
// residual Add and activation that followed:
//   q = QLinearConv(x, x_scale, x_zero, w, w_scale, w_zero, y_scale, y_zero, bias)
//   y = activation(float(q - y_zero) * y_scale + residual)
// Inputs: QLinearConv's nine (the bias optional), then an optional f32
// residual shaped like y. Attributes: Conv's plus `activation` and
// `activation_params` (FusedActivation.h). The value is exactly the
// unfused graph's (q is still rounded and saturated); the f32 result skips
// the u8 tensor and the DequantizeLinear pass over it.
#include "FusedActivation.h"
#include "IntegerConvCommon.h"
#include "IntegerGemmCommon.h"
#include "Kernels.h"

namespace cuvil::ops {
namespace {

constexpr size_t kResidual = 9;

Status infer(InferContext &ctx) {
  CUVIL_TRY(inferRequantizedConv(ctx, DType::F32));
  CUVIL_TRY(fusedActivation(ctx.node()).status());
  if (ctx.hasInput(kResidual) && ctx.inputType(kResidual) != ctx.node().output(0)->type())
    return ctx.error("the residual is {}, the result {}", ctx.inputType(kResidual).str(),
                     ctx.node().output(0)->type().str());
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  const Tensor *residual =
      in.size() > kResidual && node.hasInput(kResidual) ? in[kResidual] : nullptr;
  const float outScale = float(in[kRequantizedOutScale]->getDouble(0));
  const int64_t outZero = in[kRequantizedOutZero]->getInt(0);
  return evalRequantizedConv(node, in, [&](int64_t flat, int64_t q, int64_t) {
    float value = float(q - outZero) * outScale;
    if (residual)
      value += residual->data<float>()[flat];
    out[0].setDouble(flat, float(activation->apply(value)));
  });
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  const Value *x = node.input(0), *w = node.input(3);
  Expected<IntegerConvCall> call = integerConvCall(node, ctx, kRequantizedConvInputs);
  CUVIL_TRY(call.status());
  Expected<const KernelRef *> kernel = dequantizedConvKernel(
      x->type().dtype, w->type().dtype, node.input(kRequantizedOutZero)->type().dtype);
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_qconv_dq_params> params;
  params.embed(params->conv, call->params);
  params->activation = activation->kernel();
  std::vector<KernelArg> args;
  for (size_t i = 0; i < 8; ++i)
    args.push_back(KernelArg::pointer(node.input(i)));
  args.push_back(KernelArg::optionalPointer(node.input(kRequantizedBias)));
  args.push_back(KernelArg::optionalPointer(node.input(kResidual)));
  args.push_back(KernelArg::pointer(node.output(0)));
  args.push_back(KernelArg::params(params));
  return ctx.callKernel(**kernel, std::move(args), call->tasks, call->flops);
}

} // namespace

extern const OpDefinition kFusedQLinearConvOp = {
    .schema = OpSchema{"cuvil.FusedQLinearConv", 8, 10, 1, 1,
                       convAttributes({{"activation", AttrKind::String},
                                       {"activation_params", AttrKind::Floats}}),
                       infer, eval},
    .lower = lower,
    .dotProducts = integerDotProducts};

} // namespace cuvil::ops
