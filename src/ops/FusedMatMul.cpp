// cuvil.FusedMatMul: MatMul with its epilogue fused, made by the fusion and
// packing passes:
//   y = activation(scale * A . B + Bias + Residual)
// Bias has shape [N] (optional); Residual (optional) broadcasts to y along
// batch dims and rows. With `b_packed`, B is a constant packed into
// [ceil(N/64), K, 64] panels and `b_columns` is N.
#include "MatMulCommon.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  CUVIL_TRY(inferMatMul(ctx));
  CUVIL_TRY(fusedActivation(ctx.node()).status());
  Shape b = logicalB(ctx.node(), ctx.inputShape(1));
  if (ctx.hasInput(2) && ctx.inputShape(2) != Shape{b.back()})
    return ctx.error("bias has shape [{}], expected [{}]", shapeToString(ctx.inputShape(2)),
                     b.back());
  if (ctx.hasInput(3)) {
    const Shape &out = ctx.node().output(0)->type().shape;
    Expected<Shape> broadcast = broadcastShapes(ctx.inputShape(3), out);
    if (!broadcast || *broadcast != out)
      return ctx.error("the residual [{}] does not broadcast to [{}]",
                       shapeToString(ctx.inputShape(3)), shapeToString(out));
  }
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  return evalMatMul(node, in, *activation, out[0]);
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  MatMulEpilogue epilogue{node.input(2), node.input(3), node.getFloat("scale", 1.0f), *activation};
  return lowerMatMul(node, ctx, epilogue);
}

} // namespace

extern const OpDefinition kFusedMatMulOp = {.schema =
                                                OpSchema{"cuvil.FusedMatMul",
                                                         2,
                                                         4,
                                                         1,
                                                         1,
                                                         {{"activation", AttrKind::String},
                                                          {"activation_params", AttrKind::Floats},
                                                          {"scale", AttrKind::Float},
                                                          {"b_packed", AttrKind::Int},
                                                          {"b_columns", AttrKind::Int}},
                                                         infer,
                                                         eval},
                                            .lower = lower,
                                            .dotProducts = matMulDotProducts};

} // namespace cuvil::ops
