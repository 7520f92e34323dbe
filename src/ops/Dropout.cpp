// Dropout in inference: y = x, and the optional mask is all true. In
// training mode (training_mode true) dropout is random unless the ratio is
// 0, which is the identity again: the ratio must then be a constant 0.
// Both inputs must be known at compile time (constants, or graph inputs
// fixed by --value); canonicalisation forwards the op away.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status checkInference(const Node &node) {
  if (!node.input(2))
    return Status::success();
  Expected<std::vector<int64_t>> training = constantInts(node, 2, "training_mode");
  CUVIL_TRY(training.status());
  if (training->empty() || training->front() == 0)
    return Status::success();
  double ratio = 0.5;
  if (node.input(1)) {
    Expected<std::vector<double>> ratios = constantReals(node, 1, "ratio");
    CUVIL_TRY(ratios.status());
    ratio = ratios->empty() ? ratio : ratios->front();
  }
  if (ratio != 0)
    return Status::error(fmt::format("training_mode is true with ratio {}: random dropout is not "
                                     "supported (only ratio 0, the identity, or inference)",
                                     ratio));
  return Status::success();
}

Status infer(InferContext &ctx) {
  CUVIL_TRY(checkInference(ctx.node()));
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
