// Dropout: y = x and a mask of all true in inference; in training mode
// (training_mode a constant true) with a ratio that is not a constant 0,
// canonicalize rewrites it into a uniform draw, its mask and the scaled
// kept elements (CanonicalizeRandom.cpp). training_mode must be known at
// compile time (a constant, or a graph input fixed by --value); the ratio
// may come at run time.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status checkTrainingMode(const InferContext &ctx) {
  const Node &node = ctx.node();
  if (!node.input(2))
    return Status::success();
  if (ctx.inputDType(2) != DType::Bool)
    return ctx.error("training_mode must be bool, not {}", dtypeName(ctx.inputDType(2)));
  return constantInts(node, 2, "training_mode").status();
}

Status infer(InferContext &ctx) {
  CUVIL_TRY(checkTrainingMode(ctx));
  ctx.setOutput(0, ctx.inputType(0));
  if (ctx.node().numOutputs() > 1)
    ctx.setOutput(1, TensorType{DType::Bool, ctx.inputShape(0)});
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  if (node.numOutputs() > 1 && !node.output(1)->uses().empty())
    return Status::error("internal error: the mask should have been folded to a constant");
  return lowerViewOrCopy(node, ctx);
}

} // namespace

extern const OpDefinition kDropoutOp = {
    OpSchema{"Dropout",
             1,
             3,
             1,
             2,
             {{"seed", AttrKind::Int}, {"ratio", AttrKind::Float}},
             infer,
             /*reference: a training-mode draw must not fold; canonicalize forwards the rest*/
             nullptr,
             true},
    lower};

} // namespace cuvil::ops
