// Scaled dot-product attention, O = softmax(scale * Q . Kt + mask) . V,
// per batch entry (a head), holding only `block_rows` rows of scores at a
// time: the unfused graph writes the whole M x N score matrix, reads it
// for the softmax, writes the probabilities and reads them again for the
// second product (Whisper's encoder: 8 x 1500 x 1500 floats, 72 MB, four
// times per layer), where here a block of rows stays in L2.
//
// A task is one batch entry b, with its own scratch slot (Q, Kt, V and O
// strided views: the heads' transposes are strides, not copies):
//   Ktp[ceil(N/64)][K][64] = Kt[b] in GEMM panels (zero padded)
//   Vp[ceil(D/64)][N][64]  = V[b] in GEMM panels
//   for m0 in steps of R (block_rows):
//     S[R][ceil(N/64)*64] = scale * Q[b][m0..] . Ktp + mask rows   (register tiles, as GEMM)
//     for each row r: S[r] = exp(S[r] - max S[r]), inverse[r] = 1 / sum S[r]
//     O[b][m0..] = S . Vp                                      (register tiles, K = N)
//     for each row r: O[b][m0 + r] *= inverse[r]
// (the softmax's division applied to the D columns of an output row rather
// than to the N scores: one pass over the block's scores fewer).
// The register tile is the GEMM kernel's (GemmTile.h), MR rows x NV vectors.
#include "GemmTile.h"
#include "SoftmaxRow.h"

#include "cuvil/kernels/Attention.h"

using namespace cuvil::kernels;

// Sums may be reordered so that they vectorise (ONNX Runtime does the same).
#pragma clang fp reassociate(on)

namespace {

constexpr int64_t kPanel = CUVIL_GEMM_PANEL;

int64_t panelsOf(int64_t columns) { return (columns + kPanel - 1) / kPanel; }

// dst[p][r][j] = src[r * ld + p * 64 + j] for columns p*64+j < columns, else
// 0; a whole panel's rows go as four vectors each.
CUVIL_INLINE void packPanels(const float *src, int64_t rows, int64_t columns, int64_t ld,
                             float *dst) {
  for (int64_t p = 0; p < panelsOf(columns); ++p)
    for (int64_t r = 0; r < rows; ++r) {
      const float *in = src + r * ld + p * kPanel;
      float *out = dst + (p * rows + r) * kPanel;
      if ((p + 1) * kPanel <= columns) {
#pragma clang loop unroll(full)
        for (int64_t j = 0; j < kPanel; j += 16)
          store16(out + j, load16(in + j));
        continue;
      }
      for (int64_t j = 0; j < kPanel; ++j)
        out[j] = p * kPanel + j < columns ? in[j] : 0.0f;
    }
}

// dst[p][k][j] = src[(p * 64 + j) * ld + k] for columns p*64+j < columns,
// else 0: Kt's panels from K itself (rows of K = columns of Kt), in blocks
// of 16 x 16 transposed in registers; ragged blocks element by element.
CUVIL_INLINE void packTransposedPanels(const float *src, int64_t rows, int64_t columns, int64_t ld,
                                       float *dst) {
  for (int64_t j0 = 0; j0 < panelsOf(columns) * kPanel; j0 += 16) {
    float *panel = dst + j0 / kPanel * rows * kPanel + j0 % kPanel;
    for (int64_t k0 = 0; k0 < rows; k0 += 16) {
      if (j0 + 16 <= columns && k0 + 16 <= rows) {
        v16 block[16];
#pragma clang loop unroll(full)
        for (int i = 0; i < 16; ++i)
          block[i] = load16(src + (j0 + i) * ld + k0);
        transpose16x16(block);
#pragma clang loop unroll(full)
        for (int i = 0; i < 16; ++i)
          store16(panel + (k0 + i) * kPanel, block[i]);
        continue;
      }
      for (int64_t k = k0; k < rows && k < k0 + 16; ++k)
        for (int64_t j = 0; j < 16; ++j)
          panel[k * kPanel + j] = j0 + j < columns ? src[(j0 + j) * ld + k] : 0.0f;
    }
  }
}

// row[0..n) = exp(row[0..n) - max); returns 1 / the sum.
CUVIL_INLINE float exponentiateRow(float *row, int64_t n) {
  return 1.0f / exponentiateShifted(row, row, n, 1, rowMax(row, n, 1));
}

// C[rows][columns] (row stride ldc) = scale * A[rows][K] . panels + residual
// rows, in MR x NV register tiles, panel after panel, over K in chunks of
// chunk_k panel rows that stay in L1 while every row tile streams through
// them (the second product's K is the key count: a whole V panel of 1500
// keys is 384 KiB, which would be re-read from L2 or L3 by every tile):
//   for panel: for k0 in chunks of K: for r0 in steps of MR: for c0 in steps of 16 NV:
//     C[r0.., n0+c0..] = first chunk ? scale * acc + residual : C + scale * acc
CUVIL_INLINE void tiledProduct(const cuvil_attention_params &p, const float *a, int64_t lda,
                               const float *panels, int64_t K, int64_t rows, int64_t columns,
                               float *c, int64_t ldc, float scale, const float *residual,
                               int64_t residualLd) {
  const int64_t MR = p.tile.pixels, NV = p.tile.blocks;
  cuvil_unary identity{CUVIL_UNARY_IDENTITY, 0.0f, 0.0f};
  for (int64_t panel = 0; panel < panelsOf(columns); ++panel) {
    const int64_t n0 = panel * kPanel;
    const int64_t panelColumns = columns - n0 < kPanel ? columns - n0 : kPanel;
    for (int64_t k0 = 0; k0 < K; k0 += p.chunk_k) {
      const int64_t kc = K - k0 < p.chunk_k ? K - k0 : p.chunk_k;
      const bool first = k0 == 0;
      for (int64_t r0 = 0; r0 < rows; r0 += MR) {
        const int64_t rowsLeft = rows - r0 < MR ? rows - r0 : MR;
        for (int64_t c0 = 0; c0 < panelColumns; c0 += 16 * NV) {
          float *out = c + r0 * ldc + n0 + c0;
          const float *r = !first ? out : residual ? residual + r0 * residualLd + n0 + c0 : nullptr;
          GemmEpilogue e{nullptr, r, first ? residualLd : ldc, ldc, identity, scale};
          gemmTile(NV, rowsLeft, a + r0 * lda + k0, lda, panels + (n0 * K + k0 * kPanel) + c0, kc,
                   out, panelColumns - c0, e);
        }
      }
    }
  }
}

} // namespace

CUVIL_KERNEL void cuvil_attention_f32(const float *q, const float *kt, const float *v,
                                      const float *mask, float *o, float *scratch,
                                      const cuvil_attention_params *params, int64_t begin,
                                      int64_t end) {
  const cuvil_attention_params &p = *params;
  const int64_t M = p.M, N = p.N, K = p.K, D = p.D, R = p.block_rows;
  const int64_t ldS = panelsOf(N) * kPanel;
  for (int64_t task = begin; task < end; ++task) {
    int64_t rest = task, maskOffset = 0, qOffset = 0, ktOffset = 0, vOffset = 0, oOffset = 0;
    for (int d = CUVIL_ATTENTION_MAX_BATCH_RANK - 1; d >= 0; --d) {
      const int64_t coord = rest % p.batch[d];
      rest /= p.batch[d];
      maskOffset += coord * p.mask_batch_strides[d];
      qOffset += coord * p.q_batch_strides[d];
      ktOffset += coord * p.kt_batch_strides[d];
      vOffset += coord * p.v_batch_strides[d];
      oOffset += coord * p.o_batch_strides[d];
    }
    float *ktPanels = scratch + task * p.slot_floats;
    float *vPanels = ktPanels + panelsOf(N) * kPanel * K;
    float *scores = vPanels + panelsOf(D) * kPanel * N;
    float *inverses = scores + ldS * R;
    if (p.kt_n_stride == 1)
      packPanels(kt + ktOffset, K, N, p.kt_k_stride, ktPanels);
    else
      packTransposedPanels(kt + ktOffset, K, N, p.kt_n_stride, ktPanels);
    packPanels(v + vOffset, N, D, p.v_row_stride, vPanels);
    for (int64_t m0 = 0; m0 < M; m0 += R) {
      const int64_t rows = M - m0 < R ? M - m0 : R;
      const float *maskRows = mask ? mask + maskOffset + m0 * p.mask_row_stride : nullptr;
      tiledProduct(p, q + qOffset + m0 * p.q_row_stride, p.q_row_stride, ktPanels, K, rows, N,
                   scores, ldS, float(p.scale), maskRows, p.mask_row_stride);
      for (int64_t r = 0; r < rows; ++r)
        inverses[r] = exponentiateRow(scores + r * ldS, N);
      float *out = o + oOffset + m0 * p.o_row_stride;
      tiledProduct(p, scores, ldS, vPanels, N, rows, D, out, p.o_row_stride, 1.0f, nullptr, 0);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < D; ++j)
          out[r * p.o_row_stride + j] *= inverses[r];
    }
  }
}
