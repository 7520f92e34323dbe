// cuvil.PackGemmPanels: a constant right operand B [K, N] in the panels the
// GEMM kernel streams, [ceil(N/64), K, 64], zero padded. Made by
// pack-matmul and folded there: it has no kernel.
#include "MatMulCommon.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &b = ctx.inputShape(0);
  if (ctx.inputDType(0) != DType::F32 || b.size() != 2)
    return ctx.error("packs a 2-D f32 matrix, not {}", ctx.inputType(0).str());
  ctx.setOutput(0, TensorType{DType::F32, {ceilDiv(b[1], kGemmPanel), b[0], kGemmPanel}});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  int64_t K = in[0]->dim(0), N = in[0]->dim(1);
  const float *src = in[0]->data<float>();
  float *dst = out[0].mutableData<float>(); // zero: the padding columns
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      dst[((n / kGemmPanel) * K + k) * kGemmPanel + n % kGemmPanel] = src[k * N + n];
  return Status::success();
}

} // namespace

extern const OpDefinition kPackGemmPanelsOp = {
    OpSchema{"cuvil.PackGemmPanels", 1, 1, 1, 1, {}, infer, eval}, lowerCompileTimeOnly};

} // namespace cuvil::ops
