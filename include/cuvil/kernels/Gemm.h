/* The batched matrix multiply with a fused epilogue (src/kernels/Gemm.cpp,
 * whose header comment gives the loop nest):
 *   C[b] = act(scale * A[b] . B[b] + bias + residual[b]) */
#ifndef CUVIL_KERNELS_GEMM_H
#define CUVIL_KERNELS_GEMM_H

#include "cuvil/kernels/Common.h"

/* Columns per panel of a packed right operand: Bp[ceil(N/64)][K][64]. */
#define CUVIL_GEMM_PANEL 64
/* Batch dimensions the kernel walks (size-1 ones dropped first). */
#define CUVIL_GEMM_MAX_BATCH_RANK 4
/* K runs in chunks of at most this many rows (its stack panel's size). */
#define CUVIL_GEMM_MAX_CHUNK_K 256

/* The register tile: R rows x V vectors of 16 columns, R <= 6, V in
 * {1, 2, 4} (a panel is 4 vectors), within 24 accumulators. */
#define CUVIL_GEMM_TILE_INSTANTIATED(R, V)                                                         \
  ((R) >= 1 && (R) <= 6 && ((V) == 1 || (V) == 2 || (V) == 4) && (R) * (V) <= 24)

struct cuvil_gemm_params {
  int64_t batch[CUVIL_GEMM_MAX_BATCH_RANK];           /* outermost first */
  int64_t a_batch_strides[CUVIL_GEMM_MAX_BATCH_RANK]; /* elements, 0 = broadcast */
  int64_t b_batch_strides[CUVIL_GEMM_MAX_BATCH_RANK];
  int64_t residual_batch_strides[CUVIL_GEMM_MAX_BATCH_RANK];
  int64_t M, N, K;
  int64_t lda;                           /* A's row stride (unit column stride) */
  int64_t b_row_stride, b_column_stride; /* a strided B (packed_b = 0) */
  int64_t packed_b;                      /* 1: B is prepacked into panels */
  int64_t residual_row_stride;           /* N, or 0 when one row broadcasts (an attention mask) */
  struct cuvil_tile tile;                /* rows x 16-column vectors */
  int64_t chunk_k;                       /* K rows per chunk: a chunk of the panel stays in L1 */
  int64_t block_rows; /* rows of A per task: a block that stays in L2, or all of M */
  /* consecutive panels of a row block that run each K chunk in turn before
   * the next chunk, so that the chunk of A is read into L2 once for all of
   * them (1: each panel runs all of K before the next panel) */
  int64_t group_panels;
  int64_t prefetch_c; /* 1: prefetch the next tile's rows of C (an output over half of L2) */
  /* bf16 panels: 1 = multiplied by vdpbf16ps with A rounded to bf16
   * (AVX512_BF16), 0 = widened to f32 */
  int64_t bf16_products;
  double scale;
  struct cuvil_unary activation;
};
CUVIL_KERNEL_DECL void cuvil_gemm_f32(const float *a, const float *b, const float *bias,
                                      const float *residual, float *c,
                                      const struct cuvil_gemm_params *p, int64_t begin,
                                      int64_t end);
/* The same with B packed (packed_b 1) in IEEE half precision (the bits of
 * each f16 in a uint16_t), widened to f32 a K chunk at a time: half the
 * weight bytes to stream (--precision fp16-weights). */
CUVIL_KERNEL_DECL void cuvil_gemm_f16_weights_f32(const float *a, const uint16_t *b,
                                                  const float *bias, const float *residual,
                                                  float *c, const struct cuvil_gemm_params *p,
                                                  int64_t begin, int64_t end);

/* The same with B packed (packed_b 1) in bf16 (the bits of each bf16 in a
 * uint16_t), each panel's rows in pairs, [K/2][64][2] (--precision bf16). */
CUVIL_KERNEL_DECL void cuvil_gemm_bf16_weights_f32(const float *a, const uint16_t *b,
                                                   const float *bias, const float *residual,
                                                   float *c, const struct cuvil_gemm_params *p,
                                                   int64_t begin, int64_t end);

#endif /* CUVIL_KERNELS_GEMM_H */
