// RMSNormalization (opset 23): y = x / sqrt(mean(x^2 over axes axis..last)
// + epsilon) * scale, scale broadcast against the normalised axes.
// Computed in f32 whatever stash_type says. canonicalize rewrites it into
// elementwise ops and a ReduceMean, which fuse-elementwise chains
// (CanonicalizeNormalization.cpp); Debian's ONNX 1.12 predates the op.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  Expected<int64_t> axis =
      normalizeAxis(ctx.node().getInt("axis"), int64_t(ctx.inputShape(0).size()));
  if (!axis)
    return ctx.error("{}", axis.status().message());
  if (!isFloat(ctx.inputDType(0)))
    return ctx.error("expects float x, got {}", dtypeName(ctx.inputDType(0)));
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites RMSNormalization");
}

} // namespace

extern const OpDefinition kRMSNormalizationOp = {
    OpSchema{"RMSNormalization",
             2,
             2,
             1,
             1,
             {{"axis", AttrKind::Int, int64_t(-1)},
              {"epsilon", AttrKind::Float, 1e-5f},
              {"stash_type", AttrKind::Int, int64_t(1)}},
             infer,
             /*reference: see canonicalize*/ nullptr},
    lower};

} // namespace cuvil::ops
