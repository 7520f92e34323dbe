// Identity: y = x. A view; canonicalisation forwards it away.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  ctx.setOutput(0, ctx.inputType(0));
  forwardDimValues(ctx);
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  out[0] = *in[0];
  return Status::success();
}

} // namespace

extern const OpDefinition kIdentityOp = {OpSchema{"Identity", 1, 1, 1, 1, {}, infer, eval, true},
                                         lowerViewOrCopy};

} // namespace cuvil::ops
