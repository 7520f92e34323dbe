// Batched matrix multiply with broadcast batch dimensions and a fused
// epilogue: Y[b] = act(A[b] . B[b] + bias), A row-major M x K, B row-major
// K x N, bias of length N (or null).
//
// A task is a block of MR rows of one batch entry. Register tile: MR rows x
// NV vectors of 16 columns:
//   for n0 in steps of 16*NV:
//     acc[MR][NV] = 0
//     for k: b[v] = B[k, n0 + 16v ...]; acc[r][v] += A[r, k] * b[v]
//     Y[r, n0...] = act(acc[r] + bias[n0...])
// then 16-wide and scalar column tails. MR x NV = 4 x 4 uses 16 accumulators
// plus 4 B vectors: spill-free on AVX-512's 32 registers.
#include "Vector.h"

using namespace cuvil::kernels;

namespace {

enum MatMulParam {
  kBatch0,
  kBatch1,
  kBatch2,
  kBatch3, // output batch shape
  kAStride0,
  kAStride1,
  kAStride2,
  kAStride3, // A batch strides (elements, 0 = broadcast)
  kBStride0,
  kBStride1,
  kBStride2,
  kBStride3, // B batch strides
  kM,
  kN,
  kK,
  kAct,
};
constexpr int64_t kMR = 4;
constexpr int kNV = 4;

template <int Rows, int Vecs>
CUVIL_INLINE void tile(const float *a, const float *b, float *y, const float *bias, int64_t N,
                       int64_t K, int64_t act, float alpha, float beta) {
  v16 acc[Rows][Vecs];
#pragma clang loop unroll(full)
  for (int r = 0; r < Rows; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < Vecs; ++v)
      acc[r][v] = 0.0f;
  for (int64_t k = 0; k < K; ++k) {
    v16 bv[Vecs];
#pragma clang loop unroll(full)
    for (int v = 0; v < Vecs; ++v)
      bv[v] = load16(b + k * N + 16 * v);
#pragma clang loop unroll(full)
    for (int r = 0; r < Rows; ++r) {
      v16 av = a[r * K + k];
#pragma clang loop unroll(full)
      for (int v = 0; v < Vecs; ++v)
        acc[r][v] += av * bv[v];
    }
  }
#pragma clang loop unroll(full)
  for (int r = 0; r < Rows; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < Vecs; ++v)
      store16(y + r * N + 16 * v, acc[r][v]);
// Epilogue over the stored tile; a fixed-size loop that vectorises.
#pragma clang loop unroll(full)
  for (int r = 0; r < Rows; ++r)
    for (int64_t j = 0; j < 16 * Vecs; ++j)
      y[r * N + j] = applyUnary(act, y[r * N + j] + (bias ? bias[j] : 0.0f), alpha, beta);
}

template <int Rows>
CUVIL_INLINE void rowBlock(const float *a, const float *b, float *y, const float *bias, int64_t N,
                           int64_t K, int64_t act, float alpha, float beta) {
  int64_t n0 = 0;
  for (; n0 + 16 * kNV <= N; n0 += 16 * kNV)
    tile<Rows, kNV>(a, b + n0, y + n0, bias ? bias + n0 : nullptr, N, K, act, alpha, beta);
  for (; n0 + 16 <= N; n0 += 16)
    tile<Rows, 1>(a, b + n0, y + n0, bias ? bias + n0 : nullptr, N, K, act, alpha, beta);
#pragma clang loop unroll(full)
  for (int r = 0; r < Rows; ++r) {
    for (int64_t n = n0; n < N; ++n) {
      float sum = 0.0f;
      for (int64_t k = 0; k < K; ++k)
        sum += a[r * K + k] * b[k * N + n];
      y[r * N + n] = applyUnary(act, sum + (bias ? bias[n] : 0.0f), alpha, beta);
    }
  }
}

} // namespace

CUVIL_KERNEL void cuvil_matmul_f32(const float *a, const float *b, const float *bias, float *y,
                                   const int64_t *p, float alpha, float beta, int64_t begin,
                                   int64_t end) {
  const int64_t M = p[kM], N = p[kN], K = p[kK], act = p[kAct];
  const int64_t rowBlocks = (M + kMR - 1) / kMR;
  for (int64_t task = begin; task < end; ++task) {
    int64_t batch = task / rowBlocks, r0 = (task % rowBlocks) * kMR;
    // Batch offsets of A and B from the batch index's coordinates.
    int64_t rest = batch, aOffset = 0, bOffset = 0;
    for (int d = 3; d >= 0; --d) {
      int64_t coord = rest % p[kBatch0 + d];
      rest /= p[kBatch0 + d];
      aOffset += coord * p[kAStride0 + d];
      bOffset += coord * p[kBStride0 + d];
    }
    const float *ab = a + aOffset + r0 * K;
    const float *bb = b + bOffset;
    float *yb = y + batch * M * N + r0 * N;
    int64_t rows = M - r0 < kMR ? M - r0 : kMR;
    switch (rows) {
    case 4:
      rowBlock<4>(ab, bb, yb, bias, N, K, act, alpha, beta);
      break;
    case 3:
      rowBlock<3>(ab, bb, yb, bias, N, K, act, alpha, beta);
      break;
    case 2:
      rowBlock<2>(ab, bb, yb, bias, N, K, act, alpha, beta);
      break;
    default:
      rowBlock<1>(ab, bb, yb, bias, N, K, act, alpha, beta);
      break;
    }
  }
}
