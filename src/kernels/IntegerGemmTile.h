// The core of the integer GEMM and convolution: a task's block of at most
// 64 rows x one panel of 64 columns, accumulated in i32 over K in chunks:
//   for k0 in chunks of K (chunk_k rows):
//     pack A's rows: A'[r][k] = a - a_zero (i16), and per row the
//       correction 256 * sum_k A'[r][k]
//     pack B's panel: B'[k][j] = b - b_zero + 256 (u16, in [1, 511])
//     for each MR x 16 NV register tile of the block:
//       sum[r][v] = sum over k of A'[r][k] * B'[k][16 v ..]   (i32 vectors)
//       acc[r][16 v ..] (+)= sum[r][v] - correction[r]
// The kernels pack from their own layouts (a matrix, an image's patches) and
// store acc as they need (i32, or requantized).
//
// Why B' is offset by 256: the products stay exact in i32 whatever the
// operand, and a B' known to fit in 15 unsigned bits lets LLVM multiply
// with one vpmaddwd (16-bit operands, 32-bit products) instead of the
// slower 32-bit vpmulld. The offset adds 256 * sum_k A'[r][k] to every
// column of row r, which the correction takes off.
#pragma once

#include "KernelSupport.h"

#include "cuvil/kernels/IntegerGemm.h"

namespace cuvil::kernels {

typedef uint16_t u16x16 __attribute__((ext_vector_type(16)));
typedef uint32_t u32x16 __attribute__((ext_vector_type(16)));

constexpr int64_t kIntegerPanel = CUVIL_IGEMM_PANEL;
constexpr int32_t kPanelOffset = 256;

// A task's accumulators: rows of one panel.
struct IntegerAccumulators {
  int32_t values[CUVIL_IGEMM_MAX_ROW_BLOCK * kIntegerPanel];
  int32_t at(int64_t row, int64_t column) const { return values[row * kIntegerPanel + column]; }
};

// The packed operands of one K chunk.
struct IntegerChunk {
  int16_t a[CUVIL_IGEMM_MAX_ROW_BLOCK * CUVIL_IGEMM_MAX_CHUNK_K]; // [rows][kc]
  uint16_t b[CUVIL_IGEMM_MAX_CHUNK_K * kIntegerPanel];            // [kc][64]
  int32_t correction[CUVIL_IGEMM_MAX_ROW_BLOCK];
};

// Packs rows [0, rows) of A, columns [k0, k0 + kc), less their zero point
// (zero[r * zeroStride], or 0 without one).
template <typename T>
CUVIL_INLINE void packIntegerRows(const T *a, int64_t lda, int64_t rows, int64_t k0, int64_t kc,
                                  const T *zero, int64_t zeroStride, IntegerChunk &chunk) {
  for (int64_t r = 0; r < rows; ++r) {
    const T *from = a + r * lda + k0;
    int16_t *to = chunk.a + r * kc;
    int32_t z = zero ? int32_t(zero[r * zeroStride]) : 0, sum = 0;
    for (int64_t k = 0; k < kc; ++k) {
      int32_t value = int32_t(from[k]) - z;
      to[k] = int16_t(value);
      sum += value;
    }
    chunk.correction[r] = kPanelOffset * sum;
  }
}

// Packs rows [k0, k0 + kc) of a row-major B, columns [0, columns) of the
// panel at b, less their zero point (zero[j * zeroStride], or 0).
template <typename T>
CUVIL_INLINE void packIntegerPanel(const T *b, int64_t ldb, int64_t k0, int64_t kc, int64_t columns,
                                   const T *zero, int64_t zeroStride, IntegerChunk &chunk) {
  for (int64_t k = 0; k < kc; ++k) {
    const T *from = b + (k0 + k) * ldb;
    uint16_t *to = chunk.b + k * kIntegerPanel;
    for (int64_t j = 0; j < columns; ++j) {
      int32_t z = zero ? int32_t(zero[j * zeroStride]) : 0;
      to[j] = uint16_t(int32_t(from[j]) - z + kPanelOffset);
    }
    for (int64_t j = columns; j < kIntegerPanel; ++j)
      to[j] = kPanelOffset;
  }
}

// MR rows x NV vectors over a chunk of kc.
template <int MR, int NV>
CUVIL_TILE void integerTile(const int16_t *a, int64_t kc, const uint16_t *b,
                            const int32_t *correction, int32_t *acc, int64_t accumulate) {
  u32x16 sum[MR][NV];
#pragma clang loop unroll(full)
  for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v)
      sum[r][v] = 0;
  for (int64_t k = 0; k < kc; ++k) {
    i32x16 bv[NV];
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v) {
      u16x16 packed;
      __builtin_memcpy(&packed, b + k * kIntegerPanel + 16 * v, sizeof(packed));
      // A no-op on B' (< 512) that tells LLVM it fits in 15 bits.
      bv[v] = __builtin_convertvector(packed, i32x16) & 0x7fff;
    }
#pragma clang loop unroll(full)
    for (int r = 0; r < MR; ++r) {
      i32x16 av = int32_t(a[r * kc + k]);
#pragma clang loop unroll(full)
      for (int v = 0; v < NV; ++v)
        sum[r][v] += __builtin_bit_cast(u32x16, av * bv[v]); // accumulation wraps
    }
  }
#pragma clang loop unroll(full)
  for (int r = 0; r < MR; ++r) {
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v) {
      int32_t *out = acc + r * kIntegerPanel + 16 * v;
      u32x16 value = sum[r][v] - uint32_t(correction[r]);
      if (accumulate) {
        u32x16 previous;
        __builtin_memcpy(&previous, out, sizeof(previous));
        value += previous;
      }
      __builtin_memcpy(out, &value, sizeof(value));
    }
  }
}

template <int NV>
CUVIL_INLINE void integerRows(int64_t rowsLeft, const int16_t *a, int64_t kc, const uint16_t *b,
                              const int32_t *correction, int32_t *acc, int64_t accumulate) {
#define CUVIL_INTEGER_ROWS_CASE(n)                                                                 \
  case n:                                                                                          \
    if constexpr (CUVIL_IGEMM_TILE_INSTANTIATED(n, NV))                                            \
      integerTile<n, NV>(a, kc, b, correction, acc, accumulate);                                   \
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
    const int64_t kc = K - k0 < blocking.chunk_k ? K - k0 : blocking.chunk_k;
    packA(k0, kc, chunk);
    packB(k0, kc, chunk);
    for (int64_t r0 = 0; r0 < rows; r0 += MR) {
      const int64_t rowsLeft = rows - r0 < MR ? rows - r0 : MR;
      for (int64_t c0 = 0; c0 < columns; c0 += 16 * NV) {
        const int16_t *a = chunk.a + r0 * kc;
        const uint16_t *b = chunk.b + c0;
        int32_t *out = acc.values + r0 * kIntegerPanel + c0;
        const int32_t *correction = chunk.correction + r0;
        switch (NV) {
        case 1:
          integerRows<1>(rowsLeft, a, kc, b, correction, out, k0 > 0);
          break;
        case 2:
          integerRows<2>(rowsLeft, a, kc, b, correction, out, k0 > 0);
          break;
        case 4:
          integerRows<4>(rowsLeft, a, kc, b, correction, out, k0 > 0);
          break;
        default:
          CUVIL_NOT_INSTANTIATED();
        }
      }
    }
  }
}

} // namespace cuvil::kernels
