// cuvil.FusedConv: Conv with its epilogue fused, made by the fusion pass:
//   y = activation(conv(X, W) + B + Residual)
// Inputs X, W, optional B, optional Residual (shaped like y). Attributes are
// Conv's plus `activation` and `activation_params` (see FusedActivation.h).
#include "ConvCommon.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  CUVIL_TRY(inferConv(ctx));
  CUVIL_TRY(fusedActivation(ctx.node()).status());
  if (ctx.hasInput(3) && ctx.inputType(3) != ctx.node().output(0)->type())
    return ctx.error("the residual is {}, the result {}", ctx.inputType(3).str(),
                     ctx.node().output(0)->type().str());
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  return evalConv(node, *in[0], *in[1], in.size() > 2 ? in[2] : nullptr,
                  in.size() > 3 ? in[3] : nullptr, *activation, out[0]);
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  return lowerConv(node, ctx, node.input(3), *activation);
}

} // namespace

extern const OpDefinition kFusedConvOp = {
    OpSchema{
        "cuvil.FusedConv", 2, 4, 1, 1,
        convAttributes({{"activation", AttrKind::String}, {"activation_params", AttrKind::Floats}}),
        infer, eval},
    lower};

} // namespace cuvil::ops
