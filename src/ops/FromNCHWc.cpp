// cuvil.FromNCHWc: blocked [N, CB, H, W, K] back to plain [N, channels, H, W].
#include "ReorderNCHWc.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) { return inferReorder(ctx, /*toBlocked=*/false); }

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  return evalReorder(*in[0], out[0], /*toBlocked=*/false);
}

Status lower(const Node &node, LoweringContext &ctx) {
  return lowerReorder(node, ctx, /*toBlocked=*/false);
}

} // namespace

extern const OpDefinition kFromNCHWcOp = {
    OpSchema{"cuvil.FromNCHWc", 1, 1, 1, 1, {{"channels", AttrKind::Int}}, infer, eval}, lower};

} // namespace cuvil::ops
