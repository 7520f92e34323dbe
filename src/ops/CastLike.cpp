// CastLike: converts the first input's elements to the second input's type
// (only its type is read). Canonicalize rewrites it to a Cast once the
// types are known; a constant first input folds.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  ctx.setOutput(0, TensorType{ctx.inputDType(1), ctx.inputShape(0)});
  if (isSignedInt(ctx.inputDType(1))) // dims as integers, as Cast keeps them
    forwardDimValues(ctx);
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  out[0] = in[0]->castTo(out[0].dtype());
  return Status::success();
}

} // namespace

extern const OpDefinition kCastLikeOp = {
    OpSchema{"CastLike",
             2,
             2,
             1,
             1,
             {{"saturate", AttrKind::Int}, {"round_mode", AttrKind::String}},
             infer,
             eval},
    nullptr};

} // namespace cuvil::ops
