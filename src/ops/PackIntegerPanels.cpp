// cuvil.PackIntegerPanels: a constant i8 right operand B [K, N] (K a
// multiple of 4) in the panels the integer GEMM's byte path reads
// (b_packed, IntegerGemm.h): per panel of 64 columns, B's K rows as quads,
// [K / 4][64][4], columns past N zero, then the 64 columns' sums as
// little-endian i32; the result is i8 [ceil(N / 64), panel bytes]. Made by
// pack-matmul and folded there: it has no kernel.
#include "IntegerGemmCommon.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &b = ctx.inputShape(0);
  if (ctx.inputDType(0) != DType::I8 || b.size() != 2 || !b[0].isConstant() || !b[1].isConstant())
    return ctx.error("packs a static 2-D i8 matrix, not {}", ctx.inputType(0).str());
  if (b[0].constant() % 4 != 0)
    return ctx.error("packs K in quads: K = {} is not a multiple of 4", b[0].constant());
  ctx.setOutput(0, TensorType{DType::I8,
                              {ceilDiv(b[1], CUVIL_IGEMM_PANEL),
                               Dim(CUVIL_IGEMM_PACKED_PANEL_BYTES(b[0].constant()))}});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const int64_t K = in[0]->dim(0), N = in[0]->dim(1);
  const int64_t panelBytes = CUVIL_IGEMM_PACKED_PANEL_BYTES(K);
  const int8_t *b = in[0]->data<int8_t>();
  Tensor panels(TensorType{DType::I8, out[0].shape()}); // zero: the padding columns
  int8_t *packed = panels.mutableData<int8_t>();
  for (int64_t n = 0; n < N; ++n) {
    int8_t *panel = packed + n / CUVIL_IGEMM_PANEL * panelBytes;
    const int64_t j = n % CUVIL_IGEMM_PANEL;
    uint32_t sum = 0;
    for (int64_t k = 0; k < K; ++k) {
      panel[(k / 4 * CUVIL_IGEMM_PANEL + j) * 4 + k % 4] = b[k * N + n];
      sum += uint32_t(int32_t(b[k * N + n]));
    }
    for (int byte = 0; byte < 4; ++byte)
      panel[K * CUVIL_IGEMM_PANEL + 4 * j + byte] = int8_t(uint8_t(sum >> (8 * byte)));
  }
  out[0] = std::move(panels);
  return Status::success();
}

} // namespace

extern const OpDefinition kPackIntegerPanelsOp = {
    OpSchema{"cuvil.PackIntegerPanels", 1, 1, 1, 1, {}, infer, eval}, lowerCompileTimeOnly};

} // namespace cuvil::ops
