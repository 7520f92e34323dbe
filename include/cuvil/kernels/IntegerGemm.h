/* The batched integer matrix product (src/kernels/IntegerGemm.cpp, whose
 * header comment gives the loop nest): 8-bit operands less their zero
 * points, multiplied with 32-bit accumulation, stored as i32 (MatMulInteger)
 * or requantized (QLinearMatMul):
 *   acc[b] = (A[b] - a_zero) . (B[b] - b_zero)
 *   y[b] = acc[b]                                                  (igemm)
 *   y[b] = saturate(round_half_even(float(acc[b]) * a_scale * b_scale / y_scale)
 *                   + y_zero)                                      (qgemm)
 *   y[b] = activation(float(acc[b]) * (a_scale * b_scale) + bias)  (dqgemm)
 * A's zero point and scale are per tensor or per row, B's per tensor or
 * per column, each with its own batch strides (the two of an operand share
 * one shape); the output's are scalars. The integer convolution
 * (IntegerConv.h) shares its register tiles. */
#ifndef CUVIL_KERNELS_INTEGER_GEMM_H
#define CUVIL_KERNELS_INTEGER_GEMM_H

#include "cuvil/kernels/Common.h"

/* Columns per task and per packed panel of B. */
#define CUVIL_IGEMM_PANEL 64
/* The most rows a task packs and accumulates, and the deepest K chunk. */
#define CUVIL_IGEMM_MAX_ROW_BLOCK 256
#define CUVIL_IGEMM_MAX_CHUNK_K 256
#define CUVIL_IGEMM_MAX_BATCH_RANK 4

/* The register tile: R rows x V vectors of 8 i32 columns (R <= 6, V in
 * {2, 4, 8}, within 24 accumulators). */
#define CUVIL_IGEMM_TILE_INSTANTIATED(R, V)                                                        \
  ((R) >= 1 && (R) <= 6 && ((V) == 2 || (V) == 4 || (V) == 8) && (R) * (V) <= 24)

/* The dot tile (CUVIL_PRODUCTS_DOT): R rows x V vectors of 8 columns, two
 * to a 512-bit register (R <= 6, V in {2, 4, 8}: at most 24 accumulators
 * of 16 columns). */
#define CUVIL_IGEMM_DOT_TILE_INSTANTIATED(R, V)                                                    \
  ((R) >= 1 && (R) <= 6 && ((V) == 2 || (V) == 4 || (V) == 8))

/* How the tiles multiply: u8 by i8 operands whose i8 side has zero point 0
 * take a byte path, the rest widen both to i16. */
enum cuvil_integer_products {
  CUVIL_PRODUCTS_WORDS = 0, /* i16 pairs (vpmaddwd): any operands */
  CUVIL_PRODUCTS_BYTES = 1, /* byte pairs (vpmaddubsw): i8 within [-64, 64], exact */
  CUVIL_PRODUCTS_DOT = 2,   /* byte quads (512-bit vpdpbusd, AVX512-VNNI): any i8, exact */
  /* byte pairs, two of them summed in i16 before widening: i8 within
   * [-32, 32] (4 * 255 * 32 < 2^15), exact, a third faster than BYTES */
  CUVIL_PRODUCTS_BYTES_PAIRED = 3
};

/* How a task packs and tiles: rows per task (<= CUVIL_IGEMM_MAX_ROW_BLOCK),
 * the register tile, and K rows per chunk (<= CUVIL_IGEMM_MAX_CHUNK_K), a
 * chunk of the packed panel being what stays in L1. */
struct cuvil_igemm_blocking {
  int64_t row_block;
  struct cuvil_tile tile;
  int64_t chunk_k;
};

struct cuvil_igemm_params {
  int64_t batch[CUVIL_IGEMM_MAX_BATCH_RANK];           /* outermost first */
  int64_t a_batch_strides[CUVIL_IGEMM_MAX_BATCH_RANK]; /* elements, 0 = broadcast */
  int64_t b_batch_strides[CUVIL_IGEMM_MAX_BATCH_RANK];
  int64_t a_quant_batch_strides[CUVIL_IGEMM_MAX_BATCH_RANK]; /* A's zero point and scale */
  int64_t b_quant_batch_strides[CUVIL_IGEMM_MAX_BATCH_RANK];
  int64_t M, N, K;
  int64_t lda, ldb;              /* row strides (unit column strides) */
  int64_t a_quant_row_stride;    /* 0: per tensor, 1: per row */
  int64_t b_quant_column_stride; /* 0: per tensor, 1: per column */
  /* CUVIL_PRODUCTS_BYTES, _BYTES_PAIRED or _DOT: u8 A, i8 B with zero
   * point 0 (within [-64, 64] for BYTES, [-32, 32] for BYTES_PAIRED), K and
   * lda multiples of 4 (checked at compile time); A's rows are read in
   * place. */
  int64_t products;
  /* 1: B is constant and was packed at compile time (b_packed, with a byte
   * path), CUVIL_IGEMM_PACKED_PANEL_BYTES(K) bytes per panel of 64 columns:
   * its K rows as quads, [K / 4][64][4] i8 (columns past N zero), then the
   * 64 columns' sums as i32 (for A's zero point). */
  int64_t b_packed;
  struct cuvil_igemm_blocking blocking;
};
#define CUVIL_IGEMM_PACKED_PANEL_BYTES(K) (((K) / 4 + 1) * CUVIL_IGEMM_PANEL * 4)

/* The operand types (name, C type) of each instance: the first operand's,
 * then the second's, then the output's. */
#define CUVIL_IGEMM_TYPES(X)                                                                       \
  X(u8, uint8_t, u8, uint8_t)                                                                      \
  X(u8, uint8_t, i8, int8_t) X(i8, int8_t, u8, uint8_t) X(i8, int8_t, i8, int8_t)
#define CUVIL_QGEMM_TYPES(X)                                                                       \
  X(u8, uint8_t, u8, uint8_t, u8, uint8_t)                                                         \
  X(u8, uint8_t, u8, uint8_t, i8, int8_t)                                                          \
  X(u8, uint8_t, i8, int8_t, u8, uint8_t)                                                          \
  X(u8, uint8_t, i8, int8_t, i8, int8_t)                                                           \
  X(i8, int8_t, u8, uint8_t, u8, uint8_t)                                                          \
  X(i8, int8_t, u8, uint8_t, i8, int8_t)                                                           \
  X(i8, int8_t, i8, int8_t, u8, uint8_t) X(i8, int8_t, i8, int8_t, i8, int8_t)

/* MatMulInteger: zero points may be null (0). Tasks: batch entries x row
 * blocks x column panels. */
#define CUVIL_DECLARE_IGEMM(an, A, bn, B)                                                          \
  CUVIL_KERNEL_DECL void cuvil_igemm_##an##_##bn(                                                  \
      const A *a, const B *b, const A *a_zero, const B *b_zero, int32_t *y,                        \
      const struct cuvil_igemm_params *p, int64_t begin, int64_t end);
CUVIL_IGEMM_TYPES(CUVIL_DECLARE_IGEMM)

/* QLinearMatMul. */
#define CUVIL_DECLARE_QGEMM(an, A, bn, B, yn, Y)                                                   \
  CUVIL_KERNEL_DECL void cuvil_qgemm_##an##_##bn##_##yn(                                           \
      const A *a, const float *a_scale, const A *a_zero, const B *b, const float *b_scale,         \
      const B *b_zero, const float *y_scale, const Y *y_zero, Y *y,                                \
      const struct cuvil_igemm_params *p, int64_t begin, int64_t end);
CUVIL_QGEMM_TYPES(CUVIL_DECLARE_QGEMM)

/* cuvil.MatMulIntegerToFloat: f32 results, then an activation;
 *   y = activation(float(acc) * (a_scale * b_scale) + bias)
 * zero points and bias (f32 [N]) may be null. */
struct cuvil_dqgemm_params {
  struct cuvil_igemm_params gemm;
  struct cuvil_unary activation;
};
#define CUVIL_DECLARE_DQGEMM(an, A, bn, B)                                                         \
  CUVIL_KERNEL_DECL void cuvil_dqgemm_##an##_##bn(                                                 \
      const A *a, const float *a_scale, const A *a_zero, const B *b, const float *b_scale,         \
      const B *b_zero, const float *bias, float *y, const struct cuvil_dqgemm_params *p,           \
      int64_t begin, int64_t end);
CUVIL_IGEMM_TYPES(CUVIL_DECLARE_DQGEMM)

#endif /* CUVIL_KERNELS_INTEGER_GEMM_H */
