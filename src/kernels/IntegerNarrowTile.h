// The integer convolution's fast path for u8 images and constant i8
// weights with zero point 0 that the lowering checked (within [-64, 64],
// or meeting the paired sets: assign-precision's): four K rows per step,
// multiplied as bytes. A task's block of at most 256 rows x one
// panel of 64 columns:
//   wsum[r] = sum_k w[r][k]
//   for k0 in chunks of K (chunk_k rows, padded to a multiple of 4):
//     A: the weights' own rows when K is a multiple of 4 (a quad
//       w[r][4q .. 4q + 3] is one i32, rows K / 4 quads apart); else
//       packed per chunk as quads, rows chunk_k / 4 quads apart
//     pack B's panel: the raw u8 image values, interleaved in quads:
//       [q][j][4] = (x[4q][j], .., x[4q + 3][j])   (padding reads as x_zero)
//     for each MR x (NV x 8 columns) register tile:
//       acc[r][8 v ..] (=, then +=) sum over q of
//         vpmaddwd(vpmaddubsw(B'[q][8 v ..], splat(A quad [r][q])), 1)
//       (paired: sum over pairs q, q + 1 of
//         vpmaddwd(vpmaddubsw(q) + vpmaddubsw(q + 1), 1))
//   acc[r][j] -= x_zero * wsum[r]   (wsum once per block of rows, not per task)
// vpmaddubsw multiplies 32 u8 x i8 pairs and adds adjacent products into
// i16 with saturation; |w| <= 64 keeps every sum exact (255 * 64 * 2 <
// 2^15), and vpmaddwd by 1 adds the i16 pairs into i32 (the paired sets
// keep two such sums exact: PairedByteProducts.h). Twice the products
// of the i16 path (IntegerGemmTile.h) per instruction. The weights are
// constants the task reads in place: packing them per task cost a tenth of
// the time. With AVX512-VNNI one vpdpbusd replaces the pair of
// instructions and any i8 weights are exact (dotTile, 512-bit). The GEMM (u8
// activations by i8 weights) swaps the roles:
// its u8 rows are read in place and broadcast, the weights packed as the
// panel (accumulateNarrowGemmTask).
#pragma once

#include "IntegerGemmTile.h"

namespace cuvil::kernels {

typedef uint8_t u8x8 __attribute__((ext_vector_type(8)));

// The packed operands of one K chunk (kq = ceil(kc / 4) quads).
struct NarrowChunk {
  int8_t a[CUVIL_IGEMM_MAX_ROW_BLOCK * CUVIL_IGEMM_MAX_CHUNK_K]; // [row][4 stride] (K % 4 != 0)
  uint8_t b[CUVIL_IGEMM_MAX_CHUNK_K * kIntegerPanel];            // [kq][64][4]
};

// Packs rows [0, rows) of the weights, columns [k0, k0 + kc), as quads
// `stride` quads apart, zero-filling the last quad.
CUVIL_INLINE void packNarrowRows(const int8_t *w, int64_t ldw, int64_t rows, int64_t k0, int64_t kc,
                                 int64_t stride, NarrowChunk &chunk) {
  const int64_t kq = (kc + 3) / 4;
  for (int64_t r = 0; r < rows; ++r) {
    const int8_t *from = w + r * ldw + k0;
    int8_t *to = chunk.a + r * 4 * stride;
    for (int64_t k = 0; k < kc; ++k)
      to[k] = from[k];
    for (int64_t k = kc; k < 4 * kq; ++k)
      to[k] = 0;
  }
}

// Packs the panel of a chunk four rows at a time: packRow(k, row) writes
// image row k of the chunk, columns [0, columns), into a contiguous row,
// and the quad is interleaved into the panel. Rows past kc meet zero
// weights: any value does.
template <typename PackRow>
CUVIL_INLINE void packNarrowQuads(int64_t kc, NarrowChunk &chunk, PackRow packRow) {
  uint8_t rows[4][kIntegerPanel];
  for (int i = 0; i < 4; ++i)
    for (int64_t j = 0; j < kIntegerPanel; ++j)
      rows[i][j] = 0;
  for (int64_t k = 0; k < kc; k += 4) {
    for (int i = 0; i < 4 && k + i < kc; ++i)
      packRow(k + i, rows[i]);
    // Column j's quad is one little-endian u32: rows 0..3 in bytes 0..3.
    uint8_t *to = chunk.b + (k / 4) * kIntegerPanel * 4;
    for (int64_t j = 0; j < kIntegerPanel; j += 8) {
      u32x8 quad = 0;
#pragma clang loop unroll(full)
      for (int i = 0; i < 4; ++i) {
        u8x8 row;
        __builtin_memcpy(&row, rows[i] + j, sizeof(row));
        quad |= __builtin_convertvector(row, u32x8) << (8 * i);
      }
      __builtin_memcpy(to + 4 * j, &quad, sizeof(quad));
    }
  }
}

// MR rows x NV vectors of 8 columns over a chunk of kq quads. The row
// quads are the i8 weights and the panel the u8 image (convolution), or,
// with UnsignedRows, the rows u8 and the panel i8 (GEMM: activations by
// weights); vpmaddubsw takes the unsigned operand first. Paired (weights
// meeting pairedBytesExact, include/cuvil/kernels/PairedByteProducts.h:
// each lane's four weights within 128 in |w|): two quads' vpmaddubsw
// results are added in i16 before one vpmaddwd widens them (|sum| <= 255 *
// 128 < 2^15), three multiplies per 64 products instead of four, the
// multiply ports being the bound. Pairs start at quad 0 of the chunk (K
// positions 8-aligned: chunks are multiples of 8); an odd last quad goes
// alone.
template <int MR, int NV, bool UnsignedRows, bool Paired>
CUVIL_TILE void narrowTile(const int8_t *a, int64_t stride, int64_t kq, const uint8_t *b,
                           int32_t *acc, int64_t accumulate) {
  u32x8 sum[MR][NV]; // accumulation wraps, as the reference's
#pragma clang loop unroll(full)
  for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v)
      sum[r][v] = 0;
  auto products = [&](int r, int v, int64_t q) CUVIL_LAMBDA_INLINE {
    int32_t word;
    __builtin_memcpy(&word, a + 4 * (r * stride + q), sizeof(word));
    const i8x32 broadcast = __builtin_bit_cast(i8x32, i32x8(word));
    i8x32 packed;
    __builtin_memcpy(&packed, b + (q * kIntegerPanel + 8 * v) * 4, sizeof(packed));
    return UnsignedRows ? saturatedBytePairProducts(broadcast, packed)
                        : saturatedBytePairProducts(packed, broadcast);
  };
  int64_t q = 0;
  if constexpr (Paired)
    for (; q + 1 < kq; q += 2)
#pragma clang loop unroll(full)
      for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
        for (int v = 0; v < NV; ++v)
          sum[r][v] += pairSums(products(r, v, q) + products(r, v, q + 1));
  for (; q < kq; ++q)
#pragma clang loop unroll(full)
    for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
      for (int v = 0; v < NV; ++v)
        sum[r][v] += pairSums(products(r, v, q));
  storeIntegerTile<MR, NV>(sum, acc, accumulate);
}

// The same tile with AVX512-VNNI's vpdpbusd on vectors of L lanes: each
// i32 lane adds the four products of its byte quad in one instruction, with
// no i16 sum to saturate, so any i8 weights are exact. The tiles take
// 512-bit vectors (L = 16: 6 x 64 columns in 24 accumulators, 4 panel
// vectors and a broadcast), which Zen 5 and Intel's server cores issue at
// the 256-bit ones' rate, twice the products (fma_peak measures both), and
// Zen 4 splits, at the same rate in half the instructions; a last run of 8
// columns takes one 256-bit vector (L = 8). Only variants whose CPU has
// VNNI select it (cuvil_integer_products); in the others the call folds
// away with the constant parameters before code generation. (A function
// of its own rather than a flag of narrowTile: the target attribute the
// builtin needs cannot depend on a template parameter.)
template <int MR, int NV, int L, bool UnsignedRows>
CUVIL_TILE CUVIL_VNNI_TARGET void dotTile(const int8_t *a, int64_t stride, int64_t kq,
                                          const uint8_t *b, int32_t *acc, int64_t accumulate) {
  typedef int32_t Lanes __attribute__((ext_vector_type(L)));
  typedef uint32_t Sums __attribute__((ext_vector_type(L)));
  constexpr int NZ = NV * 8 / L;
  Lanes sum[MR][NZ]; // accumulation wraps, as the reference's
#pragma clang loop unroll(full)
  for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
    for (int z = 0; z < NZ; ++z)
      sum[r][z] = 0;
  for (int64_t q = 0; q < kq; ++q) {
#pragma clang loop unroll(full)
    for (int r = 0; r < MR; ++r) {
      int32_t word;
      __builtin_memcpy(&word, a + 4 * (r * stride + q), sizeof(word));
      const Lanes quad = word;
#pragma clang loop unroll(full)
      for (int z = 0; z < NZ; ++z) {
        Lanes packed;
        __builtin_memcpy(&packed, b + (q * kIntegerPanel + L * z) * 4, sizeof(packed));
        sum[r][z] = UnsignedRows ? accumulateQuadProducts(sum[r][z], quad, packed)
                                 : accumulateQuadProducts(sum[r][z], packed, quad);
      }
    }
  }
  Sums result[MR][NZ];
#pragma clang loop unroll(full)
  for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
    for (int z = 0; z < NZ; ++z)
      result[r][z] = __builtin_bit_cast(Sums, sum[r][z]);
  storeIntegerTile<MR, NZ>(result, acc, accumulate);
}

template <int NV, bool UnsignedRows>
CUVIL_INLINE void narrowRows(int64_t products, int64_t rowsLeft, const int8_t *a, int64_t stride,
                             int64_t kq, const uint8_t *b, int32_t *acc, int64_t accumulate) {
#define CUVIL_NARROW_ROWS_CASE(n)                                                                  \
  case n:                                                                                          \
    if (products == CUVIL_PRODUCTS_DOT) {                                                          \
      if constexpr (NV == 1)                                                                       \
        dotTile<n, 1, 8, UnsignedRows>(a, stride, kq, b, acc, accumulate);                         \
      else if constexpr (CUVIL_IGEMM_DOT_TILE_INSTANTIATED(n, NV))                                 \
        dotTile<n, NV, 16, UnsignedRows>(a, stride, kq, b, acc, accumulate);                       \
      else                                                                                         \
        CUVIL_NOT_INSTANTIATED();                                                                  \
    } else if constexpr (NV == 1 ? n <= 6 : CUVIL_IGEMM_TILE_INSTANTIATED(n, NV)) {                \
      if (products == CUVIL_PRODUCTS_BYTES_PAIRED)                                                 \
        narrowTile<n, NV, UnsignedRows, true>(a, stride, kq, b, acc, accumulate);                  \
      else                                                                                         \
        narrowTile<n, NV, UnsignedRows, false>(a, stride, kq, b, acc, accumulate);                 \
    } else                                                                                         \
      CUVIL_NOT_INSTANTIATED();                                                                    \
    return;
  switch (rowsLeft) {
    CUVIL_NARROW_ROWS_CASE(1)
    CUVIL_NARROW_ROWS_CASE(2)
    CUVIL_NARROW_ROWS_CASE(3)
    CUVIL_NARROW_ROWS_CASE(4)
    CUVIL_NARROW_ROWS_CASE(5)
    CUVIL_NARROW_ROWS_CASE(6)
  default:
    CUVIL_NOT_INSTANTIATED();
  }
#undef CUVIL_NARROW_ROWS_CASE
}

// One chunk of kq quads over the task's block: rows at `a`, `stride` quads
// apart, by the packed panel, written (first chunk) or added into acc;
// `products` (cuvil_integer_products) selects the tile.
template <bool UnsignedRows>
CUVIL_INLINE void narrowChunk(const cuvil_igemm_blocking &blocking, int64_t products,
                              const int8_t *rowQuads, int64_t stride, int64_t rows, int64_t columns,
                              int64_t kq, const uint8_t *panel, IntegerAccumulators &acc,
                              int64_t accumulate) {
  const int64_t MR = blocking.tile.pixels, NV = blocking.tile.blocks;
  for (int64_t r0 = 0; r0 < rows; r0 += MR) {
    const int64_t rowsLeft = rows - r0 < MR ? rows - r0 : MR;
    // The next tile's rows for this chunk: short runs far apart (a weight
    // row of a 3x3 convolution is 9 C bytes), which the hardware
    // prefetchers do not follow; read once per panel, they come from L3 or
    // memory (ResNet-50's last 3x3 convolutions stalled a quarter of their
    // time on them).
    for (int64_t r = r0 + MR; r < r0 + 2 * MR && r < rows; ++r)
      for (int64_t j = 0; j < 4 * kq; j += 64)
        __builtin_prefetch(rowQuads + r * 4 * stride + j, 0, 3);
    for (int64_t c0 = 0; c0 < columns; c0 += 8 * NV) {
      const int8_t *a = rowQuads + r0 * 4 * stride;
      const uint8_t *b = panel + c0 * 4;
      int32_t *out = acc.values + r0 * kIntegerPanel + c0;
      // A last run of at most 8 columns takes a one-vector tile, where the
      // full one would multiply 8 NV columns for it (a 7 x 7 image's 49
      // pixels are 48 + 1: 64 columns multiplied, 56 with this tile).
      if (NV > 1 && columns - c0 <= 8) {
        narrowRows<1, UnsignedRows>(products, rowsLeft, a, stride, kq, b, out, accumulate);
        continue;
      }
      switch (NV) {
      case 2:
        narrowRows<2, UnsignedRows>(products, rowsLeft, a, stride, kq, b, out, accumulate);
        break;
      case 4:
        narrowRows<4, UnsignedRows>(products, rowsLeft, a, stride, kq, b, out, accumulate);
        break;
      case 8:
        narrowRows<8, UnsignedRows>(products, rowsLeft, a, stride, kq, b, out, accumulate);
        break;
      default:
        CUVIL_NOT_INSTANTIATED();
      }
    }
  }
}

// x_zero * sum_k w[r][k] for `rows` weight rows at w (row stride K): what
// the image's zero point adds to row r's sums, to take off.
CUVIL_INLINE void narrowZeroCorrections(const int8_t *w, int64_t rows, int64_t K, int32_t imageZero,
                                        uint32_t *corrections) {
  for (int64_t r = 0; r < rows; ++r) {
    int32_t weightSum = 0;
    for (int64_t k = 0; k < K; ++k)
      weightSum += w[r * K + k];
    corrections[r] = uint32_t(imageZero) * uint32_t(weightSum);
  }
}

// The task's accumulators over all of K (> 0) for `rows` weight rows at w
// (row stride K): packB(k0, kc, chunk) packs the image panel of each chunk;
// corrections[r] (narrowZeroCorrections; null for a zero point of 0) is
// taken off row r. rowsPacked: the chunk already holds these rows, packed
// by the previous task (K in one chunk: ResNet-50's stem, 147 weights a
// row, packed them again for each of its 196 panels, 4% of its time).
template <typename PackB>
CUVIL_INLINE void accumulateNarrowTask(const cuvil_igemm_blocking &blocking, int64_t products,
                                       const int8_t *w, int64_t rows, int64_t columns, int64_t K,
                                       const uint32_t *corrections, PackB packB, NarrowChunk &chunk,
                                       bool rowsPacked, IntegerAccumulators &acc) {
  const bool inPlace = K % 4 == 0; // constants once specialised
  const int64_t stride = inPlace ? K / 4 : (blocking.chunk_k + 3) / 4;
  for (int64_t k0 = 0; k0 < K; k0 += blocking.chunk_k) {
    const int64_t kc = K - k0 < blocking.chunk_k ? K - k0 : blocking.chunk_k, kq = (kc + 3) / 4;
    if (!inPlace && !(rowsPacked && kc == K))
      packNarrowRows(w, K, rows, k0, kc, stride, chunk);
    const int8_t *weights = inPlace ? w + k0 : chunk.a;
    packB(k0, kc, chunk);
    narrowChunk<false>(blocking, products, weights, stride, rows, columns, kq, chunk.b, acc,
                       k0 > 0);
  }
  if (corrections)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < columns; ++j)
        acc.values[r * kIntegerPanel + j] =
            int32_t(uint32_t(acc.values[r * kIntegerPanel + j]) - corrections[r]);
}

// The GEMM's byte path, rows and panel swapped: `rows` rows of u8 A read
// in place (row stride lda, K and lda multiples of 4, so no quad crosses a
// row), by a panel of `columns` columns of i8 B within [-64, 64] (row
// stride ldb), packed per chunk as quads; aZero(r) is row r's zero point:
//   acc[r][j] = sum_k a[r][k] b[k][j] - a_zero[r] * sum_k b[k][j]
// K > 0.
template <typename RowZero>
CUVIL_INLINE void accumulateNarrowGemmTask(const cuvil_igemm_blocking &blocking, int64_t products,
                                           const uint8_t *a, int64_t lda, const int8_t *b,
                                           int64_t ldb, int64_t rows, int64_t columns, int64_t K,
                                           RowZero aZero, IntegerAccumulators &acc) {
  NarrowChunk chunk;
  i32x8 columnSums[kIntegerPanel / 8] = {};
  for (int64_t k0 = 0; k0 < K; k0 += blocking.chunk_k) {
    const int64_t kc = K - k0 < blocking.chunk_k ? K - k0 : blocking.chunk_k, kq = (kc + 3) / 4;
    // A full panel's row is one fixed-size copy (a call to memcpy per row
    // took a quarter of BERT's integer GEMMs).
    packNarrowQuads(kc, chunk, [&](int64_t k, uint8_t *to) CUVIL_LAMBDA_INLINE {
      const int8_t *from = b + (k0 + k) * ldb;
      if (columns == kIntegerPanel)
        __builtin_memcpy(to, from, kIntegerPanel);
      else
        for (int64_t j = 0; j < columns; ++j)
          to[j] = uint8_t(from[j]);
    });
    // Column sums from the packed quads (kc is a multiple of 4: no stale
    // rows), eight columns a vector, each lane adding its quad's four
    // signed bytes; the sums stay in registers over the chunk.
    for (int64_t v = 0; v < kIntegerPanel / 8; ++v) {
      i32x8 sum = columnSums[v];
      for (int64_t q = 0; q < kq; ++q) {
        i32x8 quads;
        __builtin_memcpy(&quads, chunk.b + (q * kIntegerPanel + 8 * v) * 4, sizeof(quads));
        sum += (quads << 24 >> 24) + (quads << 16 >> 24) + (quads << 8 >> 24) + (quads >> 24);
      }
      columnSums[v] = sum;
    }
    narrowChunk<true>(blocking, products, reinterpret_cast<const int8_t *>(a + k0), lda / 4, rows,
                      columns, kq, chunk.b, acc, k0 > 0);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const uint32_t zero = uint32_t(aZero(r));
    for (int64_t j = 0; j < columns; ++j)
      acc.values[r * kIntegerPanel + j] = int32_t(uint32_t(acc.values[r * kIntegerPanel + j]) -
                                                  zero * uint32_t(columnSums[j / 8][j % 8]));
  }
}

// The same with B packed at compile time (b_packed: the quads of the
// panel's K rows, then its column sums; IntegerGemm.h), read where they
// lie: packing the weights per task was an eighth of BERT's integer GEMMs.
// K and lda multiples of 4, K > 0.
template <typename RowZero>
CUVIL_INLINE void accumulatePackedNarrowGemmTask(const cuvil_igemm_blocking &blocking,
                                                 int64_t products, const uint8_t *a, int64_t lda,
                                                 const uint8_t *panel, int64_t rows,
                                                 int64_t columns, int64_t K, RowZero aZero,
                                                 IntegerAccumulators &acc) {
  for (int64_t k0 = 0; k0 < K; k0 += blocking.chunk_k) {
    const int64_t kc = K - k0 < blocking.chunk_k ? K - k0 : blocking.chunk_k;
    narrowChunk<true>(blocking, products, reinterpret_cast<const int8_t *>(a + k0), lda / 4, rows,
                      columns, kc / 4, panel + k0 * kIntegerPanel, acc, k0 > 0);
  }
  const uint8_t *sums = panel + K * kIntegerPanel;
  for (int64_t r = 0; r < rows; ++r) {
    const uint32_t zero = uint32_t(aZero(r));
    for (int64_t j = 0; j < columns; ++j) {
      uint32_t sum;
      __builtin_memcpy(&sum, sums + 4 * j, sizeof(sum));
      acc.values[r * kIntegerPanel + j] =
          int32_t(uint32_t(acc.values[r * kIntegerPanel + j]) - zero * sum);
    }
  }
}

} // namespace cuvil::kernels
