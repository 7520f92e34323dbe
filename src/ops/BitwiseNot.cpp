// BitwiseNot (opset 18): ~x on integers. canonicalize rewrites it into
// BitwiseXor(x, all ones), the binary kernel (Canonicalize.cpp).
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  DType dtype = ctx.inputDType(0);
  if (!isSignedInt(dtype) && !isUnsignedInt(dtype))
    return ctx.error("expects integers, got {}", dtypeName(dtype));
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  for (int64_t i = 0, n = out[0].numElements(); i < n; ++i)
    out[0].setInt(i, ~in[0]->getInt(i));
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites BitwiseNot into BitwiseXor");
}

} // namespace

extern const OpDefinition kBitwiseNotOp = {OpSchema{"BitwiseNot", 1, 1, 1, 1, {}, infer, eval},
                                           lower};

} // namespace cuvil::ops
