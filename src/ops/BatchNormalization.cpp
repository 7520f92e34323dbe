// BatchNormalization (inference): per channel c (dim 1),
//   y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c]
// The fold-batchnorm pass merges it into a preceding Conv; canonicalisation
// rewrites the rest into Mul/Add, so it has no lowering of its own.
#include "OpSupport.h"

#include <cmath>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  if (x.size() < 2)
    return ctx.error("input must have a channel dimension");
  if (ctx.node().getInt("training_mode"))
    return ctx.error("training_mode is not supported");
  if (ctx.node().numOutputs() > 1)
    return ctx.error("running mean/var outputs (training) are not supported");
  for (size_t i = 1; i < 5; ++i)
    if (ctx.inputShape(i) != Shape{x[1]})
      return ctx.error("parameter {} has shape [{}], expected [{}]", i,
                       shapeToString(ctx.inputShape(i)), x[1]);
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Shape &x = in[0]->shape();
  int64_t channels = x[1].constant(), inner = numElements(std::span(x).subspan(2)).constant();
  double epsilon = node.getFloat("epsilon");
  for (int64_t i = 0, n = in[0]->numElements(); i < n; ++i) {
    int64_t c = (i / inner) % channels;
    double normalized =
        (in[0]->getDouble(i) - in[3]->getDouble(c)) / std::sqrt(in[4]->getDouble(c) + epsilon);
    out[0].setDouble(i, normalized * in[1]->getDouble(c) + in[2]->getDouble(c));
  }
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: BatchNormalization should have been canonicalised");
}

} // namespace

extern const OpDefinition kBatchNormalizationOp = {
    OpSchema{"BatchNormalization",
             5,
             5,
             1,
             3,
             {{"epsilon", AttrKind::Float, 1e-5f},
              {"momentum", AttrKind::Float, 0.9f},
              {"training_mode", AttrKind::Int, int64_t(0)},
              {"spatial", AttrKind::Int}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
