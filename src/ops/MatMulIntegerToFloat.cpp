// cuvil.MatMulIntegerToFloat (ONNX Runtime's com.microsoft op of that name,
// its inputs in its order): numpy matmul of u8/i8 operands less their zero
// points, accumulated in i32 and dequantized to f32, plus an optional bias,
// then the activation fuse-epilogues absorbed (FusedActivation.h):
//   y = activation(float((a - a_zero) . (b - b_zero)) * (a_scale * b_scale) + bias)
// A's scale and zero point per tensor or per row, B's per tensor or per
// column, bias f32 [N]. assign-precision writes it for a MatMul whose
// activations cuvil.DynamicQuantizeRows quantizes per row: no output range
// to calibrate and no requantization of the result.
#include "FusedActivation.h"
#include "IntegerGemmCommon.h"
#include "Kernels.h"

namespace cuvil::ops {
namespace {

constexpr IntegerMatMulInputs kInputs{0, 1, 4, 5, 2, 3};
constexpr size_t kBias = 6;

Status infer(InferContext &ctx) {
  CUVIL_TRY(inferIntegerMatMul(ctx, kInputs, DType::F32));
  if (!ctx.hasInput(kBias))
    return Status::success();
  const Shape &out = ctx.node().output(0)->type().shape;
  if (ctx.inputDType(kBias) != DType::F32 || ctx.inputShape(kBias).size() != 1 ||
      ctx.inputShape(kBias)[0] != out.back())
    return ctx.error("bias is {}: it must be f32 [{}]", ctx.node().input(kBias)->type().str(),
                     out.back());
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &aScale = *in[2], &bScale = *in[3];
  const Tensor *bias = in.size() > kBias ? in[kBias] : nullptr;
  const int64_t N = out[0].shape().back().constant();
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  return evalIntegerMatMul(
      node, kInputs, in, [&](int64_t flat, int32_t acc, int64_t aEntry, int64_t bEntry) {
        const float scale = float(aScale.getDouble(aEntry)) * float(bScale.getDouble(bEntry));
        const float value = float(acc) * scale + (bias ? float(bias->getDouble(flat % N)) : 0.0f);
        out[0].setDouble(flat, float(activation->apply(value)));
      });
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *a = node.input(0), *b = node.input(1);
  Expected<IntegerGemmCall> call = integerGemmCall(node, ctx, kInputs);
  CUVIL_TRY(call.status());
  Expected<const KernelRef *> kernel = dequantizedGemmKernel(a->type().dtype, b->type().dtype);
  CUVIL_TRY(kernel.status());
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  ParamBlock<cuvil_dqgemm_params> params;
  params.embed(params->gemm, call->params);
  params->activation = activation->kernel();
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(a), KernelArg::pointer(node.input(2)),
                         KernelArg::optionalPointer(node.input(4)), KernelArg::pointer(b),
                         KernelArg::pointer(node.input(3)),
                         KernelArg::optionalPointer(node.input(5)),
                         KernelArg::optionalPointer(node.input(kBias)),
                         KernelArg::pointer(node.output(0)), KernelArg::params(params)},
                        call->tasks, call->flops);
}

std::vector<AttrSpec> attributes() {
  std::vector<AttrSpec> specs = packedOperandAttributes();
  specs.push_back({"activation", AttrKind::String});
  specs.push_back({"activation_params", AttrKind::Floats});
  return specs;
}

} // namespace

extern const OpDefinition kMatMulIntegerToFloatOp = {
    .schema = OpSchema{"cuvil.MatMulIntegerToFloat", 4, 7, 1, 1, attributes(), infer, eval},
    .lower = lower,
    .dotProducts = integerDotProducts};

} // namespace cuvil::ops
