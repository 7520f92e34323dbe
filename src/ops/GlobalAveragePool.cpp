// GlobalAveragePool: the mean of each (n, c) plane; y is [N, C, 1, ...].
#include "ReduceCommon.h"

#include <numeric>

namespace cuvil::ops {
namespace {

std::vector<int64_t> spatialAxes(int64_t rank) {
  std::vector<int64_t> axes(size_t(std::max<int64_t>(rank - 2, 0)));
  std::iota(axes.begin(), axes.end(), 2);
  return axes;
}

Status infer(InferContext &ctx) {
  Shape out = ctx.inputShape(0);
  if (out.size() < 3)
    return ctx.error("input must be N-C-spatial");
  std::fill(out.begin() + 2, out.end(), 1);
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  return evalReduce(*in[0], spatialAxes(in[0]->type().rank()), CUVIL_REDUCE_MEAN, out[0]);
}

Status lower(const Node &node, LoweringContext &ctx) {
  return lowerReduce(node.input(0), node.output(0), spatialAxes(node.input(0)->type().rank()),
                     CUVIL_REDUCE_MEAN, ctx);
}

} // namespace

extern const OpDefinition kGlobalAveragePoolOp = {
    OpSchema{"GlobalAveragePool", 1, 1, 1, 1, {}, infer, eval}, lower};

} // namespace cuvil::ops
