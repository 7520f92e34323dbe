// Dropout in inference: y = x, and the optional mask is all true. The ratio
// and training_mode inputs must not request training (checked here);
// canonicalisation forwards the op away.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  if (const Tensor *training = ctx.constantInput(2); training && training->getInt(0) != 0)
    return ctx.error("training_mode is true; only inference is supported");
  if (ctx.hasInput(2) && !ctx.constantInput(2))
    return ctx.error("training_mode must be a constant");
  ctx.setOutput(0, ctx.inputType(0));
  if (ctx.node().numOutputs() > 1)
    ctx.setOutput(1, TensorType{DType::Bool, ctx.inputShape(0)});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  out[0] = *in[0];
  if (out.size() > 1)
    for (int64_t i = 0, n = out[1].numElements(); i < n; ++i)
      out[1].setInt(i, 1);
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
             eval,
             true},
    lower};

} // namespace cuvil::ops
