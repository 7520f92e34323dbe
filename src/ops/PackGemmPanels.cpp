// cuvil.PackGemmPanels: a constant right operand B [K, N] in the panels the
// GEMM kernel streams, [ceil(N/64), K, 64], zero padded; with half = 1 in
// f16 (rounded to nearest even), which the kernel widens as it goes; with
// bf16 = 1 in bf16 (rounded to nearest even), each panel's rows in pairs,
// [K/2][64][2] (K even), as vdpbf16ps takes them (gemmPanelIndex). Made by
// pack-matmul and folded there: it has no kernel.
#include "MatMulCommon.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &b = ctx.inputShape(0);
  if (ctx.inputDType(0) != DType::F32 || b.size() != 2)
    return ctx.error("packs a 2-D f32 matrix, not {}", ctx.inputType(0).str());
  const bool bf16 = ctx.node().getInt("bf16", 0) != 0;
  if (bf16 && !(b[0].isConstant() && b[0].constant() % 2 == 0))
    return ctx.error("bf16 panels pair K's rows: K = {} is not even", b[0].str());
  DType dtype = bf16 ? DType::BF16 : (ctx.node().getInt("half", 0) ? DType::F16 : DType::F32);
  ctx.setOutput(0, TensorType{dtype, {ceilDiv(b[1], kGemmPanel), b[0], kGemmPanel}});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  int64_t K = in[0]->dim(0), N = in[0]->dim(1);
  const float *src = in[0]->data<float>();
  Tensor panels(TensorType{DType::F32, out[0].shape()});
  float *dst = panels.mutableData<float>(); // zero: the padding columns
  const bool pairs = out[0].dtype() == DType::BF16;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k)
      dst[gemmPanelIndex(K, k, n, pairs)] = src[k * N + n];
  out[0] = out[0].dtype() == DType::F32 ? std::move(panels) : panels.castTo(out[0].dtype());
  return Status::success();
}

} // namespace

extern const OpDefinition kPackGemmPanelsOp = {
    OpSchema{"cuvil.PackGemmPanels",
             1,
             1,
             1,
             1,
             {{"half", AttrKind::Int}, {"bf16", AttrKind::Int}},
             infer,
             eval},
    lowerCompileTimeOnly};

} // namespace cuvil::ops
