// The GEMM register tile, shared by the GEMM kernel, the recurrence
// kernel's matrix-vector products and the plain-layout N-D convolution
// (Conv3d.cpp, over the vol2col panels it packs): MR rows of A times a panel of B (64
// columns, CUVIL_GEMM_PANEL floats a row), NV vectors of 16 columns at a
// time, into C with an epilogue:
//   acc[MR][NV] = 0
//   for k: b[v] = panel row k, columns 16v..; for r: acc[r][v] += A[r][k] * b[v]
//   C[r][16v..] = act(scale * acc + bias + residual)
// A RowBias tile adds bias[r] to row r (a convolution's output channel)
// instead of a bias per column. The panel holds floats, or f16 bits
// (uint16_t) the tile widens as it loads them (--precision fp16-weights).
#pragma once

#include "Vector.h"

#include "cuvil/kernels/Gemm.h"

namespace cuvil::kernels {

struct GemmEpilogue {
  const float *bias;     // at the panel's first column (at the tile's first
                         // row in a RowBias tile), or null
  const float *residual; // at the tile's first element, or null
  int64_t residualLd;    // residual row stride
  int64_t ldc;
  cuvil_unary act;
  float scale;
};

// 16 (V = v16) or 8 (v8) panel columns as floats.
template <typename V = v16, typename Weight> CUVIL_INLINE V loadPanel(const Weight *p) {
  if constexpr (sizeof(Weight) == sizeof(float)) {
    return loadV<V>(p);
  } else {
    typedef _Float16 Half __attribute__((ext_vector_type(sizeof(V) / sizeof(float))));
    Half half;
    __builtin_memcpy(&half, p, sizeof(half));
    return __builtin_convertvector(half, V);
  }
}

// v16 at p of which the first n (any count) are read, the rest 0.
CUVIL_INLINE v16 loadEdge16(const float *p, int64_t n) {
  if (n >= 16)
    return load16(p);
  v16 v = 0.0f;
  for (int64_t i = 0; i < n; ++i)
    v[i] = p[i];
  return v;
}

// The first n (any count) of v's lanes stored at p.
CUVIL_INLINE void storeEdge16(float *p, v16 v, int64_t n) {
  if (n >= 16)
    return store16(p, v);
  for (int64_t i = 0; i < n; ++i)
    p[i] = v[i];
}

// The tile's epilogue: C[r][16v..] = act(scale * acc + bias + residual), the
// first `columns` columns (the matrix's ragged right edge may end the tile).
template <int MR, int NV, bool RowBias>
CUVIL_INLINE void storeGemmTile(const v16 (&acc)[MR][NV], float *c, int64_t columns,
                                const GemmEpilogue &e) {
  v16 value[MR * NV];
#pragma clang loop unroll(full)
  for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v) {
      v16 x = acc[r][v] * e.scale;
      if (e.bias)
        x += RowBias ? v16(e.bias[r]) : load16(e.bias + 16 * v);
      if (e.residual)
        x += loadEdge16(e.residual + r * e.residualLd + 16 * v, columns - 16 * v);
      value[r * NV + v] = x;
    }
  applyUnaryEach(e.act, value);
#pragma clang loop unroll(full)
  for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v)
      storeEdge16(c + r * e.ldc + 16 * v, value[r * NV + v], columns - 16 * v);
}

// Cache lines a tile prefetches into L2 while it computes (the next chunk
// of weights streaming from memory): spread over its k steps, a few lines
// each, since a burst of them fills the line-fill buffers and stalls the
// FMAs behind it.
struct TilePrefetch {
  const char *lines = nullptr;
  int64_t count = 0;
};

// MR x NV tile over K; `columns` (<= 16 NV) of the tile are stored. K runs
// in groups of kGemmPrefetchSteps steps, each group issuing its slice of the
// prefetch lines, so that the FMA loop carries no per-k prefetch
// bookkeeping (AVX2's former 2 x 32 tile had only 8 FMAs a k step: a bound and a
// branch per step made it dispatch-bound at 75% of peak):
//   for kb in steps of S (whole groups): prefetch lines [kb/S * per, +per)
//                                        for k in kb..kb+S: acc += A[.][k] * b
//   prefetch the lines left (all of them when K < S)
//   for the last K mod S steps:          acc += A[.][k] * b
constexpr int64_t kGemmPrefetchSteps = 4;

// AVX2's widest tile, 3 rows x 32 columns, takes 12 of its 16 ymm registers
// as accumulators: with the panel row's 4 ymm held (the order above) it
// would need 17. It holds the 3 broadcasts instead and streams the panel
// row a ymm at a time, a barrier after each ymm's FMAs keeping the next
// load from being hoisted beside it (LLVM's scheduler did, and spilled).
template <int MR, int NV> constexpr bool kGemmBroadcastsHeld = MR == 3 && NV == 2;

template <int MR, int NV, bool RowBias = false, typename Weight = float>
CUVIL_TILE void gemmRegisterTile(const float *a, int64_t lda, const Weight *panel, int64_t K,
                                 float *c, int64_t columns, const GemmEpilogue &e,
                                 TilePrefetch prefetch) {
  constexpr int64_t S = kGemmPrefetchSteps;
  auto overK = [&](auto &&step) CUVIL_LAMBDA_INLINE {
    const int64_t groups = K / S > 0 ? K / S : 1;
    const int64_t perGroup = (prefetch.count + groups - 1) / groups;
    int64_t k = 0, line = 0;
    for (; k + S <= K; k += S) {
      for (const int64_t stop = line + perGroup; line < stop && line < prefetch.count; ++line)
        __builtin_prefetch(prefetch.lines + 64 * line, 0, 2);
      // Not unrolled: unrolled, the steps' broadcasts are hoisted together and
      // the AVX2 tile spills its accumulators.
#pragma clang loop unroll(disable)
      for (int64_t u = 0; u < S; ++u)
        step(k + u);
    }
    for (; line < prefetch.count; ++line)
      __builtin_prefetch(prefetch.lines + 64 * line, 0, 2);
    for (; k < K; ++k)
      step(k);
  };
  v16 acc[MR][NV];
  if constexpr (kGemmBroadcastsHeld<MR, NV>) {
    v8 half[MR][2 * NV];
#pragma clang loop unroll(full)
    for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
      for (int h = 0; h < 2 * NV; ++h)
        half[r][h] = 0.0f;
    overK([&](int64_t k) CUVIL_LAMBDA_INLINE {
      v8 av[MR];
#pragma clang loop unroll(full)
      for (int r = 0; r < MR; ++r)
        av[r] = a[r * lda + k];
#pragma clang loop unroll(full)
      for (int h = 0; h < 2 * NV; ++h) {
        const v8 b = loadPanel<v8>(panel + k * CUVIL_GEMM_PANEL + 8 * h);
#pragma clang loop unroll(full)
        for (int r = 0; r < MR; ++r)
          half[r][h] += av[r] * b;
        __asm__ volatile("" ::: "memory");
      }
    });
#pragma clang loop unroll(full)
    for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
      for (int v = 0; v < NV; ++v)
        acc[r][v] = __builtin_shufflevector(half[r][2 * v], half[r][2 * v + 1], 0, 1, 2, 3, 4, 5, 6,
                                            7, 8, 9, 10, 11, 12, 13, 14, 15);
  } else {
#pragma clang loop unroll(full)
    for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
      for (int v = 0; v < NV; ++v)
        acc[r][v] = 0.0f;
    overK([&](int64_t k) CUVIL_LAMBDA_INLINE {
      v16 b[NV];
#pragma clang loop unroll(full)
      for (int v = 0; v < NV; ++v)
        b[v] = loadPanel(panel + k * CUVIL_GEMM_PANEL + 16 * v);
#pragma clang loop unroll(full)
      for (int r = 0; r < MR; ++r) {
        v16 av = a[r * lda + k];
#pragma clang loop unroll(full)
        for (int v = 0; v < NV; ++v)
          acc[r][v] += av * b[v];
      }
    });
  }
  storeGemmTile<MR, NV, RowBias>(acc, c, columns, e);
}

template <int NV, bool RowBias, typename Weight>
CUVIL_INLINE void gemmRows(int64_t rowsLeft, const float *a, int64_t lda, const Weight *panel,
                           int64_t K, float *c, int64_t columns, const GemmEpilogue &e,
                           TilePrefetch prefetch) {
#define CUVIL_ROWS_CASE(n)                                                                         \
  case n:                                                                                          \
    if constexpr (CUVIL_GEMM_TILE_INSTANTIATED(n, NV))                                             \
      gemmRegisterTile<n, NV, RowBias, Weight>(a, lda, panel, K, c, columns, e, prefetch);         \
    else                                                                                           \
      CUVIL_NOT_INSTANTIATED();                                                                    \
    return;
  switch (rowsLeft) {
    CUVIL_ROWS_CASE(1)
    CUVIL_ROWS_CASE(2)
    CUVIL_ROWS_CASE(3)
    CUVIL_ROWS_CASE(4)
    CUVIL_ROWS_CASE(5)
    CUVIL_ROWS_CASE(6)
  default:
    CUVIL_NOT_INSTANTIATED();
  }
#undef CUVIL_ROWS_CASE
}

// The tile of `rowsLeft` rows (1 to 6) and NV vectors (1, 2 or 4).
template <bool RowBias = false, typename Weight = float>
CUVIL_INLINE void gemmTile(int64_t NV, int64_t rowsLeft, const float *a, int64_t lda,
                           const Weight *panel, int64_t K, float *c, int64_t columns,
                           const GemmEpilogue &e, TilePrefetch prefetch = {}) {
  switch (NV) {
  case 4:
    return gemmRows<4, RowBias, Weight>(rowsLeft, a, lda, panel, K, c, columns, e, prefetch);
  case 2:
    return gemmRows<2, RowBias, Weight>(rowsLeft, a, lda, panel, K, c, columns, e, prefetch);
  case 1:
    return gemmRows<1, RowBias, Weight>(rowsLeft, a, lda, panel, K, c, columns, e, prefetch);
  default:
    CUVIL_NOT_INSTANTIATED();
  }
}

} // namespace cuvil::kernels
