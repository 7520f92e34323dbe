// GroupNormalization (opsets 18 and 21): x [N, C, D1, ...] normalised over
// each of num_groups groups of C / num_groups channels (with all their
// spatial elements), then scaled and shifted per channel (scale and bias
// [C], as opset 21 gives them; OpsetAdapters repeats opset 18's per-group
// [num_groups] ones over their groups' channels).
// Computed in f32 whatever stash_type says (as the kernels compute). canonicalize rewrites it into
// LayerNormalization over a [N, num_groups, -1] view (CanonicalizeNormalization.cpp); Debian's ONNX
// 1.12 predates the op and its function body.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &shape = ctx.inputShape(0);
  if (shape.size() < 3 || !shape[1].isConstant())
    return ctx.error("expects x of rank >= 3 with a channel count known at compile time");
  const int64_t channels = shape[1].constant(), groups = ctx.node().getInt("num_groups");
  if (groups < 1 || channels % groups != 0)
    return ctx.error("num_groups {} does not divide the {} channels", groups, channels);
  for (size_t i = 1; i < 3; ++i) {
    const Shape &param = ctx.inputShape(i);
    if (param.size() != 1 || !param[0].isConstant() || param[0].constant() != channels)
      return ctx.error("{} must have shape [{}] (one per channel; at opset 18 one per group), "
                       "not [{}]",
                       i == 1 ? "scale" : "bias", channels, fmt::join(param, ", "));
  }
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites GroupNormalization");
}

} // namespace

extern const OpDefinition kGroupNormalizationOp = {
    OpSchema{"GroupNormalization",
             3,
             3,
             1,
             1,
             {{"epsilon", AttrKind::Float, 1e-5f},
              {"num_groups", AttrKind::Int, std::nullopt, /*required=*/true},
              {"stash_type", AttrKind::Int, int64_t(1)}},
             infer,
             /*reference: see canonicalize*/ nullptr},
    lower};

} // namespace cuvil::ops
