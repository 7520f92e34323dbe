// Pow: y = a ^ b with numpy broadcasting; the exponent may have another
// numeric type than the base. A constant scalar exponent (the common case:
// x^2 in hand-written norms) lowers to a unary kernel, squares and square
// roots to their exact forms.
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  Expected<Shape> shape = broadcastShapes(ctx.inputShape(0), ctx.inputShape(1));
  CUVIL_TRY(shape.status());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), *shape});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &a = *in[0], &b = *in[1];
  forEachBroadcast(out[0].shape(), a.shape(), b.shape(), [&](int64_t i, int64_t ia, int64_t ib) {
    out[0].setDouble(i, std::pow(a.getDouble(ia), b.getDouble(ib)));
  });
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *exponent = node.input(1);
  bool scalarExponent = exponent->isConstant() && exponent->constant().numElements() == 1 &&
                        node.output(0)->type().shape == node.input(0)->type().shape;
  if (scalarExponent) {
    float e = float(exponent->constant().getDouble(0));
    if (e == 2.0f)
      return lowerUnaryKernel(node, ctx, {CUVIL_UNARY_SQUARE, 0, 0});
    if (e == 0.5f)
      return lowerUnaryKernel(node, ctx, {CUVIL_UNARY_SQRT, 0, 0});
    return lowerUnaryKernel(node, ctx, {CUVIL_UNARY_POW, e, 0});
  }
  if (node.input(0)->type().dtype != exponent->type().dtype)
    return Status::error("a non-constant exponent must have the base's element type");
  return lowerBinary(node, ctx, CUVIL_BINARY_POW, BinaryKind::Arithmetic);
}

} // namespace

extern const OpDefinition kPowOp = {OpSchema{"Pow", 2, 2, 1, 1, {}, infer, eval}, lower};

} // namespace cuvil::ops
