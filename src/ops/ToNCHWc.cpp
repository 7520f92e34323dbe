// cuvil.ToNCHWc: plain [N, C, H, W] to blocked [N, ceil(C/K), H, W, K] with
// K = `block` (16 when absent, or 8); channels past C are zero.
#include "ReorderNCHWc.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) { return inferReorder(ctx, /*toBlocked=*/true); }

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  return evalReorder(*in[0], out[0], /*toBlocked=*/true);
}

Status lower(const Node &node, LoweringContext &ctx) {
  return lowerReorder(node, ctx, /*toBlocked=*/true);
}

} // namespace

extern const OpDefinition kToNCHWcOp = {
    OpSchema{"cuvil.ToNCHWc", 1, 1, 1, 1, {{"block", AttrKind::Int}}, infer, eval}, lower};

} // namespace cuvil::ops
