// Shape rule, reference and lowering shared by MatMul and cuvil.FusedMatMul:
// numpy matmul semantics (1-D operands promoted, batch dims broadcast), and
// for the fused op B prepacked into 64-column panels.
#pragma once

#include "FusedActivation.h"
#include "cuvil/kernels/Gemm.h"

namespace cuvil::ops {

// Columns per packed B panel: Bp[ceil(N/64)][K][64], zero padded.
constexpr int64_t kGemmPanel = CUVIL_GEMM_PANEL;

// Where B[k][n] (K rows) lies in its packed panels: [K][64] per panel, or
// with `pairs` (bf16 panels) [K/2][64][2], rows 2p and 2p + 1 of a column
// side by side.
inline int64_t gemmPanelIndex(int64_t K, int64_t k, int64_t n, bool pairs) {
  int64_t panel = n / kGemmPanel * K * kGemmPanel, column = n % kGemmPanel;
  return pairs ? panel + (k / 2 * kGemmPanel + column) * 2 + k % 2
               : panel + k * kGemmPanel + column;
}

struct MatMulGeometry {
  Shape outShape;
  Dim M, N, K;
  Shape batch;                    // broadcast batch dims
  std::vector<Dim> aBatchStrides; // elements, 0 where broadcast
  std::vector<Dim> bBatchStrides;
};

// B's logical shape: its own, or [K, b_columns] when packed.
Shape logicalB(const Node &node, const Shape &b);
Expected<MatMulGeometry> matMulGeometry(const Shape &a, const Shape &b);
Status inferMatMul(InferContext &ctx);
// bf16 products where B is packed in bf16 panels (--precision bf16).
DotProducts matMulDotProducts(const Node &node);

// The fused epilogue: act(scale * A.B + bias + residual).
struct MatMulEpilogue {
  const Value *bias = nullptr;
  const Value *residual = nullptr;
  float scale = 1.0f;
  FusedActivation activation;
};

Status evalMatMul(const Node &node, std::span<const Tensor *const> in,
                  const FusedActivation &activation, Tensor &y);
Status lowerMatMul(const Node &node, LoweringContext &ctx, const MatMulEpilogue &epilogue);

// The GEMM kernel's register tile for `rows` rows of A, and the K rows per
// chunk of a B panel, for the target (also taken by the 3-D convolution's
// GEMM over the vol2col panels it packs).
cuvil_tile chooseGemmTile(const CpuModel &cpu, int64_t rows);
int64_t chooseChunkK(const CpuModel &cpu);

} // namespace cuvil::ops
