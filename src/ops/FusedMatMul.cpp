// cuvil.FusedMatMul: MatMul with its epilogue fused, made by the fusion pass:
//   y = activation(A . B + Bias), Bias of shape [N] (optional).
#include "MatMulCommon.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  CUVIL_TRY(inferMatMul(ctx));
  CUVIL_TRY(fusedActivation(ctx.node()).status());
  const Shape &b = ctx.inputShape(1);
  if (ctx.hasInput(2) && ctx.inputShape(2) != Shape{b.back()})
    return ctx.error("bias has shape [{}], expected [{}]", shapeToString(ctx.inputShape(2)),
                     b.back());
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  return evalMatMul(*in[0], *in[1], in.size() > 2 ? in[2] : nullptr, *activation, out[0]);
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  return lowerMatMul(node, ctx, node.input(2), *activation);
}

} // namespace

extern const OpDefinition kFusedMatMulOp = {
    OpSchema{"cuvil.FusedMatMul",
             2,
             3,
             1,
             1,
             {{"activation", AttrKind::String}, {"activation_params", AttrKind::Floats}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
