// Not: logical negation of a bool tensor. canonicalize rewrites it into
// Xor(x, true).
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  if (ctx.inputDType(0) != DType::Bool)
    return ctx.error("expects a bool tensor, got {}", dtypeName(ctx.inputDType(0)));
  ctx.setOutput(0, TensorType{DType::Bool, ctx.inputShape(0)});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  for (int64_t i = 0, n = out[0].numElements(); i < n; ++i)
    out[0].setInt(i, in[0]->getInt(i) == 0);
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites every Not");
}

} // namespace

extern const OpDefinition kNotOp = {OpSchema{"Not", 1, 1, 1, 1, {}, infer, eval}, lower};

} // namespace cuvil::ops
