// Reorders at the edges of NCHWc regions (B = 16 or 8 channels per block).
#include "Vector.h"

#include "cuvil/kernels/DataMovement.h"

using namespace cuvil::kernels;

namespace {

// Perfect shuffle of two vectors: the low halves interleaved, then the high
// halves. Applied log2(B) times to B rows (row i with row i + B/2), it
// transposes a B x B tile in registers.
CUVIL_INLINE void interleave(v16 a, v16 b, v16 &lo, v16 &hi) {
  lo = __builtin_shufflevector(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  hi = __builtin_shufflevector(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
}
CUVIL_INLINE void interleave(v8 a, v8 b, v8 &lo, v8 &hi) {
  lo = __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
  hi = __builtin_shufflevector(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
}

template <int B> CUVIL_INLINE void transpose(Block<B> rows[B]) {
#pragma clang loop unroll(full)
  for (int round = 1; round < B; round *= 2) {
    Block<B> out[B];
#pragma clang loop unroll(full)
    for (int i = 0; i < B / 2; ++i)
      interleave(rows[i], rows[i + B / 2], out[2 * i], out[2 * i + 1]);
#pragma clang loop unroll(full)
    for (int i = 0; i < B; ++i)
      rows[i] = out[i];
  }
}

// Plain [N, C, HW] <-> blocked [N, CB, HW, B]; a task is one (n, cb).
// Blocking pads the channels past C with zeros.
//   to blocked:   y[n][cb][i][c] = c + B cb < C ? x[n][B cb + c][i] : 0
//   from blocked: y[n][B cb + c][i] = x[n][cb][i][c]   (c + B cb < C)
// B pixels at a time go through a B x B transpose in registers; the last
// HW % B pixels one by one.
template <int B>
CUVIL_INLINE void reorder(const float *x, float *y, int64_t C, int64_t HW, int64_t toBlocked,
                          int64_t begin, int64_t end) {
  using V = Block<B>;
  const int64_t CB = (C + B - 1) / B;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t n = task / CB, cb = task % CB;
    const int64_t channels = C - cb * B < B ? C - cb * B : B;
    float *blocked = toBlocked ? y + task * HW * B : nullptr;
    const float *blockedIn = toBlocked ? nullptr : x + task * HW * B;
    const int64_t plainOffset = (n * C + cb * B) * HW; // channel c at plainOffset + c * HW
    int64_t i0 = 0;
    for (; i0 + B <= HW; i0 += B) {
      V rows[B];
      if (toBlocked) {
#pragma clang loop unroll(full)
        for (int c = 0; c < B; ++c)
          rows[c] = c < channels ? loadV<V>(x + plainOffset + c * HW + i0) : V(0.0f);
        transpose<B>(rows);
#pragma clang loop unroll(full)
        for (int i = 0; i < B; ++i)
          storeV(blocked + (i0 + i) * B, rows[i]);
      } else {
#pragma clang loop unroll(full)
        for (int i = 0; i < B; ++i)
          rows[i] = loadV<V>(blockedIn + (i0 + i) * B);
        transpose<B>(rows);
#pragma clang loop unroll(full)
        for (int c = 0; c < B; ++c)
          if (c < channels)
            storeV(y + plainOffset + c * HW + i0, rows[c]);
      }
    }
    for (int64_t c = 0; c < B; ++c)
      for (int64_t i = i0; i < HW; ++i) {
        if (toBlocked)
          blocked[i * B + c] = c < channels ? x[plainOffset + c * HW + i] : 0.0f;
        else if (c < channels)
          y[plainOffset + c * HW + i] = blockedIn[i * B + c];
      }
  }
}

} // namespace

CUVIL_BLOCKED_KERNELS(reorder, reorder,
                      (const float *x, float *y, int64_t C, int64_t HW, int64_t toBlocked,
                       int64_t begin, int64_t end),
                      (x, y, C, HW, toBlocked, begin, end))
