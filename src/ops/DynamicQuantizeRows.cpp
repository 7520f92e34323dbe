// cuvil.DynamicQuantizeRows: DynamicQuantizeLinear of each row (the last
// axis) on its own, as assign-precision quantizes a MatMul's activations:
// row r of x [..., K] gets the u8 scale and zero point of its range
// including 0, [lo, hi] = [min(0, min x[r]), max(0, max x[r])]:
//   y_scale[r] = (hi - lo) / 255 (1 when hi == lo)
//   y_zero_point[r] = round_half_even(clamp(-lo / y_scale[r], 0, 255))
//   y[r] = saturate(round_half_even(x[r] * (1 / y_scale[r])) + y_zero_point[r])
// (QuantizeLinear's rounding, by the inverse: x / y_scale may differ in the
// last bit, so a value on a rounding tie may take the other step)
// with y_scale and y_zero_point shaped [..., 1], the per-row operand
// quantization an integer matmul reads. A row's outliers then cost only its
// own resolution, where one scale for the tensor spends the 256 steps of
// every row on the largest one (transformers' activations have a few such
// channels and tokens).
// One kernel call, a task per row: its parameters, then its values.
#include "Kernels.h"
#include "QuantizeCommon.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  if (ctx.inputDType(0) != DType::F32)
    return ctx.error("x is {}: f32 is supported", dtypeName(ctx.inputDType(0)));
  const Shape &x = ctx.inputShape(0);
  if (x.empty() || !x.back().isConstant() || x.back().constant() < 1)
    return ctx.error("x is [{}]: rows need a static, non-zero length", shapeToString(x));
  Shape perRow = x;
  perRow.back() = Dim(1);
  ctx.setOutput(0, TensorType{DType::U8, x});
  ctx.setOutput(1, TensorType{DType::F32, perRow});
  ctx.setOutput(2, TensorType{DType::U8, perRow});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  const int64_t K = x.shape().back().constant(), rows = x.numElements() / K;
  const QuantizedRange range = *quantizedRange(DType::U8);
  for (int64_t r = 0; r < rows; ++r) {
    float lo = 0.0f, hi = 0.0f;
    for (int64_t k = 0; k < K; ++k) {
      lo = std::min(lo, float(x.getDouble(r * K + k)));
      hi = std::max(hi, float(x.getDouble(r * K + k)));
    }
    const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
    const float zeroPoint = std::nearbyint(std::clamp(0.0f - lo / scale, 0.0f, 255.0f));
    const float inverse = 1.0f / scale;
    for (int64_t k = 0; k < K; ++k)
      out[0].setInt(r * K + k, roundToQuantized(float(x.getDouble(r * K + k)) * inverse,
                                                int64_t(zeroPoint), range));
    out[1].setDouble(r, scale);
    out[2].setInt(r, int64_t(zeroPoint));
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0), *scale = node.output(1);
  return ctx.callKernel(kDynamicQuantizeRowsKernel,
                        {KernelArg::pointer(x), KernelArg::pointer(node.output(0)),
                         KernelArg::pointer(scale), KernelArg::pointer(node.output(2)),
                         KernelArg::constant(x->type().shape.back())},
                        scale->type().numElements());
}

} // namespace

extern const OpDefinition kDynamicQuantizeRowsOp = {
    OpSchema{"cuvil.DynamicQuantizeRows", 1, 1, 3, 3, {}, infer, eval}, lower};

} // namespace cuvil::ops
