// IsNaN: bool, true where x is NaN. canonicalize rewrites it into
// Xor(Equal(x, x), true) (NaN is the one value unequal to itself).
#include "OpSupport.h"

#include <cmath>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  if (!isFloat(ctx.inputDType(0)))
    return ctx.error("expects a float tensor, got {}", dtypeName(ctx.inputDType(0)));
  ctx.setOutput(0, TensorType{DType::Bool, ctx.inputShape(0)});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  for (int64_t i = 0, n = out[0].numElements(); i < n; ++i)
    out[0].setInt(i, std::isnan(in[0]->getDouble(i)));
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites every IsNaN");
}

} // namespace

extern const OpDefinition kIsNaNOp = {OpSchema{"IsNaN", 1, 1, 1, 1, {}, infer, eval}, lower};

} // namespace cuvil::ops
