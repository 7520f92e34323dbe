// The core of the integer GEMM and convolution: a task's block of at most
// 64 rows x one panel of 64 columns, accumulated in i32 over K in chunks,
// two K rows at a time:
//   for k0 in chunks of K (chunk_k rows, padded to even with zero rows):
//     pack A's rows: A'[r][k] = a - a_zero (i16), pairs (A'[r][2p], A'[r][2p+1])
//       as one i32
//     pack B's panel: B'[k][j] = b - b_zero (i16), interleaved in pairs:
//       [p][j][2] = (B'[2p][j], B'[2p+1][j])
//     for each MR x (NV x 8 columns) register tile of the block:
//       acc[r][8 v ..] (+)= sum over p of vpmaddwd(B'[p][8 v .. 8 v + 8], splat(A' pair [r][p]))
// vpmaddwd multiplies 16 pairs of i16 and adds each pair into an i32: two
// K rows per instruction, exactly (|A'|, |B'| <= 255, so a pair's sum is
// below 2^17). The kernels pack from their own layouts (a matrix, an
// image's patches) and store acc as they need (i32, or requantized).
//
// The register tile uses AVX2's 256-bit vpmaddwd, which both x86-64
// variants have; this header is compiled with -mavx2 there (CMakeLists.txt)
// and as DotInstructions.h's NEON form on aarch64.
#pragma once

#include "DotInstructions.h"
#include "KernelSupport.h"

#include "cuvil/kernels/IntegerGemm.h"

namespace cuvil::kernels {

constexpr int64_t kIntegerPanel = CUVIL_IGEMM_PANEL;

// A task's accumulators: rows of one panel.
struct IntegerAccumulators {
  int32_t values[CUVIL_IGEMM_MAX_ROW_BLOCK * kIntegerPanel];
  int32_t at(int64_t row, int64_t column) const { return values[row * kIntegerPanel + column]; }
};

// The packed operands of one K chunk (kp = ceil(kc / 2) pairs).
struct IntegerChunk {
  int32_t a[CUVIL_IGEMM_MAX_ROW_BLOCK * CUVIL_IGEMM_MAX_CHUNK_K / 2]; // [rows][kp] pairs
  int16_t b[CUVIL_IGEMM_MAX_CHUNK_K * kIntegerPanel];                 // [kp][64][2]
};

CUVIL_INLINE int32_t pairOf(int32_t low, int32_t high) {
  return int32_t(uint32_t(uint16_t(int16_t(low))) | (uint32_t(uint16_t(int16_t(high))) << 16));
}

// Packs rows [0, rows) of A, columns [k0, k0 + kc), less their zero point
// (zero[r * zeroStride], or 0 without one).
template <typename T>
CUVIL_INLINE void packIntegerRows(const T *a, int64_t lda, int64_t rows, int64_t k0, int64_t kc,
                                  const T *zero, int64_t zeroStride, IntegerChunk &chunk) {
  const int64_t kp = (kc + 1) / 2;
  for (int64_t r = 0; r < rows; ++r) {
    const T *from = a + r * lda + k0;
    int32_t *to = chunk.a + r * kp;
    const int32_t z = zero ? int32_t(zero[r * zeroStride]) : 0;
    for (int64_t p = 0; p < kc / 2; ++p)
      to[p] = pairOf(int32_t(from[2 * p]) - z, int32_t(from[2 * p + 1]) - z);
    if (kc % 2)
      to[kp - 1] = pairOf(int32_t(from[kc - 1]) - z, 0);
  }
}

// Packs the panel of a chunk two B' rows at a time: packRow(k, row) writes
// B' row k of the chunk, columns [0, columns), into a contiguous row (the
// rest of it stays 0), and the pair is interleaved into the panel. An odd
// chunk's last pair takes a zero row.
template <typename PackRow>
CUVIL_INLINE void packIntegerPairs(int64_t kc, int64_t columns, IntegerChunk &chunk,
                                   PackRow packRow) {
  int16_t rows[2][kIntegerPanel];
  for (int64_t j = columns; j < kIntegerPanel; ++j)
    rows[0][j] = rows[1][j] = 0;
  for (int64_t k = 0; k < kc; k += 2) {
    packRow(k, rows[0]);
    if (k + 1 < kc)
      packRow(k + 1, rows[1]);
    else
      for (int64_t j = 0; j < columns; ++j)
        rows[1][j] = 0;
    int16_t *to = chunk.b + (k / 2) * kIntegerPanel * 2;
    for (int64_t j = 0; j < kIntegerPanel; ++j) {
      to[2 * j] = rows[0][j];
      to[2 * j + 1] = rows[1][j];
    }
  }
}

// Packs rows [k0, k0 + kc) of a row-major B, columns [0, columns) of the
// panel at b, less their zero point (zero[j * zeroStride], or 0).
template <typename T>
CUVIL_INLINE void packIntegerPanel(const T *b, int64_t ldb, int64_t k0, int64_t kc, int64_t columns,
                                   const T *zero, int64_t zeroStride, IntegerChunk &chunk) {
  packIntegerPairs(kc, columns, chunk, [&](int64_t k, int16_t *row) CUVIL_LAMBDA_INLINE {
    const T *from = b + (k0 + k) * ldb;
    for (int64_t j = 0; j < columns; ++j)
      row[j] = int16_t(int32_t(from[j]) - (zero ? int32_t(zero[j * zeroStride]) : 0));
  });
}

// Stores (or adds, wrapping) a register tile's sums, NV vectors of u32 a
// row, into its rows of the task's accumulators.
template <int MR, int NV, typename V>
CUVIL_INLINE void storeIntegerTile(const V (&sum)[MR][NV], int32_t *acc, int64_t accumulate) {
  constexpr int lanes = sizeof(V) / sizeof(uint32_t);
#pragma clang loop unroll(full)
  for (int r = 0; r < MR; ++r) {
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v) {
      int32_t *out = acc + r * kIntegerPanel + lanes * v;
      V value = sum[r][v];
      if (accumulate) {
        V previous;
        __builtin_memcpy(&previous, out, sizeof(previous));
        value += previous;
      }
      __builtin_memcpy(out, &value, sizeof(value));
    }
  }
}

// MR rows x NV vectors of 8 columns over a chunk of kp pairs.
template <int MR, int NV>
CUVIL_TILE void integerTile(const int32_t *a, int64_t kp, const int16_t *b, int32_t *acc,
                            int64_t accumulate) {
  u32x8 sum[MR][NV]; // accumulation wraps, as the reference's
#pragma clang loop unroll(full)
  for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v)
      sum[r][v] = 0;
  for (int64_t p = 0; p < kp; ++p) {
#pragma clang loop unroll(full)
    for (int r = 0; r < MR; ++r) {
      const i32x8 pair = a[r * kp + p];
#pragma clang loop unroll(full)
      for (int v = 0; v < NV; ++v) {
        i16x16 packed;
        __builtin_memcpy(&packed, b + (p * kIntegerPanel + 8 * v) * 2, sizeof(packed));
        sum[r][v] += pairProducts(packed, __builtin_bit_cast(i16x16, pair));
      }
    }
  }
  storeIntegerTile<MR, NV>(sum, acc, accumulate);
}

template <int NV>
CUVIL_INLINE void integerRows(int64_t rowsLeft, const int32_t *a, int64_t kp, const int16_t *b,
                              int32_t *acc, int64_t accumulate) {
#define CUVIL_INTEGER_ROWS_CASE(n)                                                                 \
  case n:                                                                                          \
    if constexpr (CUVIL_IGEMM_TILE_INSTANTIATED(n, NV))                                            \
      integerTile<n, NV>(a, kp, b, acc, accumulate);                                               \
    else                                                                                           \
      CUVIL_NOT_INSTANTIATED();                                                                    \
    return;
  switch (rowsLeft) {
    CUVIL_INTEGER_ROWS_CASE(1)
    CUVIL_INTEGER_ROWS_CASE(2)
    CUVIL_INTEGER_ROWS_CASE(3)
    CUVIL_INTEGER_ROWS_CASE(4)
    CUVIL_INTEGER_ROWS_CASE(5)
    CUVIL_INTEGER_ROWS_CASE(6)
  default:
    CUVIL_NOT_INSTANTIATED();
  }
#undef CUVIL_INTEGER_ROWS_CASE
}

// The task's accumulators over all of K: packA(k0, kc, chunk) packs `rows`
// rows, packB(k0, kc, chunk) the panel, for each chunk.
template <typename PackA, typename PackB>
CUVIL_INLINE void accumulateIntegerTask(const cuvil_igemm_blocking &blocking, int64_t rows,
                                        int64_t columns, int64_t K, PackA packA, PackB packB,
                                        IntegerAccumulators &acc) {
  IntegerChunk chunk;
  const int64_t MR = blocking.tile.pixels, NV = blocking.tile.blocks;
  if (K == 0)
    for (int64_t i = 0; i < rows * kIntegerPanel; ++i)
      acc.values[i] = 0;
  for (int64_t k0 = 0; k0 < K; k0 += blocking.chunk_k) {
    const int64_t kc = K - k0 < blocking.chunk_k ? K - k0 : blocking.chunk_k, kp = (kc + 1) / 2;
    packA(k0, kc, chunk);
    packB(k0, kc, chunk);
    for (int64_t r0 = 0; r0 < rows; r0 += MR) {
      const int64_t rowsLeft = rows - r0 < MR ? rows - r0 : MR;
      for (int64_t c0 = 0; c0 < columns; c0 += 8 * NV) {
        const int32_t *a = chunk.a + r0 * kp;
        const int16_t *b = chunk.b + c0 * 2;
        int32_t *out = acc.values + r0 * kIntegerPanel + c0;
        switch (NV) {
        case 2:
          integerRows<2>(rowsLeft, a, kp, b, out, k0 > 0);
          break;
        case 4:
          integerRows<4>(rowsLeft, a, kp, b, out, k0 > 0);
          break;
        case 8:
          integerRows<8>(rowsLeft, a, kp, b, out, k0 > 0);
          break;
        default:
          CUVIL_NOT_INSTANTIATED();
        }
      }
    }
  }
}

} // namespace cuvil::kernels
