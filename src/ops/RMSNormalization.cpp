// RMSNormalization (opset 23): y = x / sqrt(mean(x^2 over axes axis..last)
// + epsilon) * scale, scale broadcast against the normalised axes.
// Computed in f32 whatever stash_type says. canonicalize rewrites it into
// elementwise ops and a ReduceMean, which fuse-elementwise chains
// (CanonicalizeNormalization.cpp); Debian's ONNX 1.12 predates the op.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

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
             inferFloatAlongAxis,
             /*reference: see canonicalize*/ nullptr},
    lower};

} // namespace cuvil::ops
