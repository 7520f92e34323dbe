// LpNormalization: x divided by its L1 or L2 norm (p 1 or 2) along `axis`;
// a slice of zeros stays zeros, as in ONNX Runtime. canonicalize rewrites it
// into ReduceL1/ReduceL2, Max(norm, the least normal float) and Div
// (CanonicalizeLp.cpp).
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const int64_t p = ctx.node().getInt("p");
  if (p != 1 && p != 2)
    return ctx.error("p must be 1 or 2, not {}", p);
  return inferFloatAlongAxis(ctx);
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites LpNormalization");
}

} // namespace

extern const OpDefinition kLpNormalizationOp = {
    OpSchema{"LpNormalization",
             1,
             1,
             1,
             1,
             {{"axis", AttrKind::Int, int64_t(-1)}, {"p", AttrKind::Int, int64_t(2)}},
             infer,
             /*reference: see canonicalize*/ nullptr},
    lower};

} // namespace cuvil::ops
