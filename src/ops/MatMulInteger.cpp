// MatMulInteger: numpy matmul of u8/i8 operands less their zero points
// (optional, 0 by default; A's per tensor or per row, B's per tensor or per
// column), as i32 with wrapping accumulation.
#include "IntegerGemmCommon.h"
#include "Kernels.h"

namespace cuvil::ops {
namespace {

constexpr IntegerMatMulInputs kInputs{0, 1, 2, 3, std::nullopt, std::nullopt};

Status infer(InferContext &ctx) { return inferIntegerMatMul(ctx, kInputs, DType::I32); }

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  return evalIntegerMatMul(node, kInputs, in, [&](int64_t flat, int32_t acc, int64_t, int64_t) {
    out[0].setInt(flat, acc);
  });
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *a = node.input(0), *b = node.input(1);
  Expected<IntegerGemmCall> call = integerGemmCall(node, ctx, kInputs);
  CUVIL_TRY(call.status());
  Expected<const KernelRef *> kernel = integerGemmKernel(a->type().dtype, b->type().dtype);
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(a), KernelArg::pointer(b),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::optionalPointer(node.input(3)),
                         KernelArg::pointer(node.output(0)), KernelArg::params(call->params)},
                        call->tasks, call->flops);
}

} // namespace

extern const OpDefinition kMatMulIntegerOp = {
    .schema = OpSchema{"MatMulInteger", 2, 4, 1, 1, packedOperandAttributes(), infer, eval},
    .lower = lower,
    .dotProducts = integerDotProducts};

} // namespace cuvil::ops
