// The GEMM's bf16 paths (--precision bf16): B's panels hold bf16 in row
// pairs, [K/2][64][2], as vdpbf16ps takes them.
//   With AVX512_BF16 (bf16_products = 1), per K chunk and row tile:
//     A'[r][p] = (bf16(A[r][2p]), bf16(A[r][2p + 1]))   (round to nearest even)
//     acc[r][v] += sum over p of vdpbf16ps(splat(A'[r][p]), panel pairs [p][16v ..])
//   each instruction adding two products per f32 lane: twice the FMA's
//   multiply-adds, the sums kept in f32. Elsewhere the chunk is widened to
//   f32 rows (a bf16 is the top half of an f32) for the f32 tile.
#pragma once

#include "DotInstructions.h"
#include "GemmTile.h"

namespace cuvil::kernels {

// An f32's bf16 bits, rounded to nearest even (a NaN stays a NaN).
CUVIL_INLINE uint32_t bf16Bits(float x) {
  const uint32_t bits = __builtin_bit_cast(uint32_t, x);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return (bits >> 16) | 0x40u;
  return (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
}

// Rows [0, rows) of A (row stride lda), columns [0, 2 pairs), as bf16
// pairs: to[r * pairs + p] holds A[r][2p] in its low half. vcvtne2ps2bf16
// rounds 32 floats at once into 16 such pairs; a ragged end goes one pair
// at a time. (Only the vdpbf16ps path calls it.)
CUVIL_TILE CUVIL_BF16_TARGET void packBf16Rows(const float *a, int64_t lda, int64_t rows,
                                               int64_t pairs, uint32_t *to) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = a + r * lda;
    int64_t p = 0;
    for (; p + 16 <= pairs; p += 16) {
      v16 low, high;
      __builtin_memcpy(&low, row + 2 * p, sizeof(low));
      __builtin_memcpy(&high, row + 2 * p + 16, sizeof(high));
      const bf16x32 rounded = roundToBf16(high, low);
      __builtin_memcpy(to + r * pairs + p, &rounded, sizeof(rounded));
    }
    for (; p < pairs; ++p)
      to[r * pairs + p] = bf16Bits(row[2 * p]) | (bf16Bits(row[2 * p + 1]) << 16);
  }
}

// A chunk of `pairs` pair rows of a panel widened to 2 pairs f32 rows of 64.
CUVIL_INLINE void widenBf16Pairs(const uint16_t *panel, int64_t pairs, float *to) {
  for (int64_t p = 0; p < pairs; ++p)
    for (int64_t j = 0; j < CUVIL_GEMM_PANEL; ++j) {
      uint32_t word;
      __builtin_memcpy(&word, panel + (p * CUVIL_GEMM_PANEL + j) * 2, sizeof(word));
      to[2 * p * CUVIL_GEMM_PANEL + j] = __builtin_bit_cast(float, word << 16);
      to[(2 * p + 1) * CUVIL_GEMM_PANEL + j] = __builtin_bit_cast(float, word & 0xffff0000u);
    }
}

// MR x NV tile over `pairs` K pairs: A' rows `pairs` apart, the panel's
// pair rows 64 pairs apart. Only variants whose CPU has AVX512_BF16 select
// it; in the others the call folds away with the constant parameters.
template <int MR, int NV>
CUVIL_TILE CUVIL_BF16_TARGET void gemmBf16Tile(const uint32_t *aPairs, int64_t pairs,
                                               const uint16_t *panel, float *c, int64_t columns,
                                               const GemmEpilogue &e) {
  v16 acc[MR][NV];
#pragma clang loop unroll(full)
  for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v)
      acc[r][v] = 0.0f;
  for (int64_t p = 0; p < pairs; ++p) {
    bf16x32 b[NV];
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v)
      __builtin_memcpy(&b[v], panel + (p * CUVIL_GEMM_PANEL + 16 * v) * 2, sizeof(b[v]));
    // The broadcast pair is the instruction's memory operand ({1to16}):
    // 24 accumulators and 4 panel vectors leave no register for six.
#pragma clang loop unroll(full)
    for (int r = 0; r < MR; ++r) {
      const bf16x32 av = __builtin_bit_cast(bf16x32, u32x16(aPairs[r * pairs + p]));
#pragma clang loop unroll(full)
      for (int v = 0; v < NV; ++v)
        acc[r][v] = accumulateBf16PairProducts(acc[r][v], b[v], av);
    }
  }
  storeGemmTile<MR, NV, false>(acc, c, columns, e);
}

template <int NV>
CUVIL_INLINE void gemmBf16Rows(int64_t rowsLeft, const uint32_t *aPairs, int64_t pairs,
                               const uint16_t *panel, float *c, int64_t columns,
                               const GemmEpilogue &e) {
#define CUVIL_BF16_ROWS_CASE(n)                                                                    \
  case n:                                                                                          \
    if constexpr (CUVIL_GEMM_TILE_INSTANTIATED(n, NV))                                             \
      gemmBf16Tile<n, NV>(aPairs, pairs, panel, c, columns, e);                                    \
    else                                                                                           \
      CUVIL_NOT_INSTANTIATED();                                                                    \
    return;
  switch (rowsLeft) {
    CUVIL_BF16_ROWS_CASE(1)
    CUVIL_BF16_ROWS_CASE(2)
    CUVIL_BF16_ROWS_CASE(3)
    CUVIL_BF16_ROWS_CASE(4)
    CUVIL_BF16_ROWS_CASE(5)
    CUVIL_BF16_ROWS_CASE(6)
  default:
    CUVIL_NOT_INSTANTIATED();
  }
#undef CUVIL_BF16_ROWS_CASE
}

// The bf16 tile of `rowsLeft` rows (1 to 6) and NV vectors (1, 2 or 4).
CUVIL_INLINE void gemmBf16TileOf(int64_t NV, int64_t rowsLeft, const uint32_t *aPairs,
                                 int64_t pairs, const uint16_t *panel, float *c, int64_t columns,
                                 const GemmEpilogue &e) {
  switch (NV) {
  case 4:
    return gemmBf16Rows<4>(rowsLeft, aPairs, pairs, panel, c, columns, e);
  case 2:
    return gemmBf16Rows<2>(rowsLeft, aPairs, pairs, panel, c, columns, e);
  case 1:
    return gemmBf16Rows<1>(rowsLeft, aPairs, pairs, panel, c, columns, e);
  default:
    CUVIL_NOT_INSTANTIATED();
  }
}

} // namespace cuvil::kernels
