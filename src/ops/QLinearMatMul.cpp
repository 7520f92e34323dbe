// QLinearMatMul: numpy matmul of quantized u8/i8 operands, requantized:
//   y = saturate(round_half_even(float((a - a_zero) . (b - b_zero))
//                                * (a_scale * b_scale / y_scale)) + y_zero)
// accumulating in i32 and scaling in f32 as ONNX Runtime does. A's scale and
// zero point are per tensor or per row, B's per tensor or per column, the
// output's per tensor; y has y_zero_point's type. Opset 21 only adds types
// Cuvil has no tensors of (float 8, f16 and bf16 scales).
#include "IntegerGemmCommon.h"
#include "Kernels.h"
#include "QuantizeCommon.h"

namespace cuvil::ops {
namespace {

constexpr IntegerMatMulInputs kInputs{0, 3, 2, 5, 1, 4};
constexpr size_t kOutScale = 6, kOutZero = 7;

Status infer(InferContext &ctx) {
  DType result = ctx.inputDType(kOutZero);
  if (result != DType::U8 && result != DType::I8)
    return ctx.error("y_zero_point is {}: u8 or i8 are supported", dtypeName(result));
  if (ctx.inputDType(kOutScale) != DType::F32)
    return ctx.error("y_scale is {}: f32 is supported", dtypeName(ctx.inputDType(kOutScale)));
  CUVIL_TRY(checkScalarInput(ctx, kOutScale, "y_scale"));
  CUVIL_TRY(checkScalarInput(ctx, kOutZero, "y_zero_point"));
  return inferIntegerMatMul(ctx, kInputs, result);
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &aScale = *in[1], &bScale = *in[4];
  const float outScale = float(in[kOutScale]->getDouble(0));
  const int64_t outZero = in[kOutZero]->getInt(0);
  const QuantizedRange range = *quantizedRange(out[0].dtype());
  return evalIntegerMatMul(
      node, kInputs, in, [&](int64_t flat, int32_t acc, int64_t aEntry, int64_t bEntry) {
        float multiplier =
            float(aScale.getDouble(aEntry)) * float(bScale.getDouble(bEntry)) / outScale;
        out[0].setInt(flat, roundToQuantized(float(acc) * multiplier, outZero, range));
      });
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *a = node.input(0), *b = node.input(3), *y = node.output(0);
  Expected<IntegerGemmCall> call = integerGemmCall(node, ctx, kInputs);
  CUVIL_TRY(call.status());
  Expected<const KernelRef *> kernel =
      requantizedGemmKernel(a->type().dtype, b->type().dtype, y->type().dtype);
  CUVIL_TRY(kernel.status());
  std::vector<KernelArg> args;
  for (size_t i = 0; i < 8; ++i)
    args.push_back(KernelArg::pointer(node.input(i)));
  args.push_back(KernelArg::pointer(y));
  args.push_back(KernelArg::params(call->params));
  return ctx.callKernel(**kernel, std::move(args), call->tasks, call->flops);
}

} // namespace

extern const OpDefinition kQLinearMatMulOp = {
    .schema = OpSchema{"QLinearMatMul", 8, 8, 1, 1, packedOperandAttributes(), infer, eval},
    .lower = lower,
    .dotProducts = integerDotProducts};

} // namespace cuvil::ops
