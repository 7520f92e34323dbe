// GlobalLpPool: y = (sum over each (n, c) plane of |x|^p)^(1/p), [N, C, 1,
// ...]: the L1 or L2 reduction for p 1 and 2; canonicalize rewrites other
// p into Pow, ReduceSum and Pow (CanonicalizeLp.cpp).
#include "ReduceCommon.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  if (ctx.node().getInt("p") < 1)
    return ctx.error("p must be a positive integer, not {}", ctx.node().getInt("p"));
  return inferGlobalPool(ctx);
}

cuvil_reduce_op reduction(const Node &node) {
  return node.getInt("p") == 1 ? CUVIL_REDUCE_L1 : CUVIL_REDUCE_L2;
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  if (node.getInt("p") > 2)
    return Status::error("internal error: canonicalize rewrites GlobalLpPool of p > 2");
  return evalReduce(*in[0], spatialAxes(in[0]->type().rank()), reduction(node), out[0]);
}

Status lower(const Node &node, LoweringContext &ctx) {
  if (node.getInt("p") > 2)
    return Status::error("internal error: canonicalize rewrites GlobalLpPool of p > 2");
  return lowerReduce(node.input(0), node.output(0), spatialAxes(node.input(0)->type().rank()),
                     reduction(node), ctx);
}

} // namespace

extern const OpDefinition kGlobalLpPoolOp = {
    OpSchema{"GlobalLpPool", 1, 1, 1, 1, {{"p", AttrKind::Int, int64_t(2)}}, infer, eval}, lower};

} // namespace cuvil::ops
