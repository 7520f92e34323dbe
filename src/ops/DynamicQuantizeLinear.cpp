// DynamicQuantizeLinear: the u8 quantization of x with the scale and zero
// point of its range including 0, [lo, hi] = [min(0, min x), max(0, max x)]:
//   y_scale = (hi - lo) / 255 (1 when hi == lo, as ONNX Runtime; the ONNX
//             reference's 1/255 there is arbitrary: the spec divides by 0)
//   y_zero_point = round_half_even(clamp(-lo / y_scale, 0, 255))
//   y = QuantizeLinear(x, y_scale, y_zero_point)
// Two kernel calls: the parameters (one task), then the quantize kernel
// reading them from this node's own results.
#include "Kernels.h"
#include "QuantizeCommon.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  if (ctx.inputDType(0) != DType::F32)
    return ctx.error("x is {}: f32 is supported", dtypeName(ctx.inputDType(0)));
  ctx.setOutput(0, TensorType{DType::U8, ctx.inputShape(0)});
  ctx.setOutput(1, TensorType{DType::F32, {}});
  ctx.setOutput(2, TensorType{DType::U8, {}});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  float lo = 0.0f, hi = 0.0f;
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    lo = std::min(lo, float(x.getDouble(i)));
    hi = std::max(hi, float(x.getDouble(i)));
  }
  float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  float zeroPoint = std::nearbyint(std::clamp(0.0f - lo / scale, 0.0f, 255.0f));
  QuantizedRange range = *quantizedRange(DType::U8);
  for (int64_t i = 0, n = x.numElements(); i < n; ++i)
    out[0].setInt(i, roundToQuantized(float(x.getDouble(i)) / scale, int64_t(zeroPoint), range));
  out[1].setDouble(0, scale);
  out[2].setInt(0, int64_t(zeroPoint));
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  const Value *y = node.output(0), *scale = node.output(1), *zeroPoint = node.output(2);
  Dim elements = x->type().numElements();
  CUVIL_TRY(ctx.callKernel(kDynamicQuantParamsKernel,
                           {KernelArg::pointer(x), KernelArg::pointer(scale),
                            KernelArg::pointer(zeroPoint), KernelArg::constant(elements)},
                           1));
  QuantLayout perTensor{elements, 1, elements};
  Expected<const KernelRef *> kernel = quantizeKernel(DType::U8);
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(x), KernelArg::pointer(scale),
                         KernelArg::pointer(zeroPoint), KernelArg::pointer(y),
                         KernelArg::params(perTensor.kernelParams())},
                        perTensor.tasks());
}

} // namespace

extern const OpDefinition kDynamicQuantizeLinearOp = {
    OpSchema{"DynamicQuantizeLinear", 1, 1, 3, 3, {}, infer, eval}, lower};

} // namespace cuvil::ops
