// LpPool (opsets 2-18): y = (sum over each window of |x|^p)^(1/p), with
// MaxPool's window attributes (pads, strides, dilations, ceil_mode).
// canonicalize rewrites it into an AveragePool of |x|^p counting padding,
// times the window's size, to the power 1/p (CanonicalizeLp.cpp).
#include "PoolCommon.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  if (ctx.node().getInt("p") < 1)
    return ctx.error("p must be a positive integer, not {}", ctx.node().getInt("p"));
  return inferPool(ctx);
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites LpPool into an AveragePool");
}

} // namespace

extern const OpDefinition kLpPoolOp = {
    OpSchema{"LpPool", 1, 1, 1, 1,
             windowAttributes({{"ceil_mode", AttrKind::Int}, {"p", AttrKind::Int, int64_t(2)}}),
             infer, /*reference: see canonicalize*/ nullptr},
    lower};

} // namespace cuvil::ops
