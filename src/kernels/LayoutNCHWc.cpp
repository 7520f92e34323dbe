// Reorders at the edges of NCHWc regions (B = 16 or 8 channels per block).
#include "Vector.h"

using namespace cuvil::kernels;

namespace {

// Plain [N, C, HW] <-> blocked [N, CB, HW, B]; a task is one (n, cb).
// Blocking pads the channels past C with zeros.
//   to blocked:   y[n][cb][i][c] = c + B cb < C ? x[n][B cb + c][i] : 0
//   from blocked: y[n][B cb + c][i] = x[n][cb][i][c]   (c + B cb < C)
template <int B>
CUVIL_INLINE void reorder(const float *x, float *y, int64_t C, int64_t HW, int64_t toBlocked,
                          int64_t begin, int64_t end) {
  const int64_t CB = (C + B - 1) / B;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t n = task / CB, cb = task % CB;
    const int64_t channels = C - cb * B < B ? C - cb * B : B;
    float *blocked = toBlocked ? y + task * HW * B : nullptr;
    const float *blockedIn = toBlocked ? nullptr : x + task * HW * B;
    for (int64_t c = 0; c < B; ++c) {
      const int64_t plainOffset = (n * C + cb * B + c) * HW;
      for (int64_t i = 0; i < HW; ++i) {
        if (toBlocked)
          blocked[i * B + c] = c < channels ? x[plainOffset + i] : 0.0f;
        else if (c < channels)
          y[plainOffset + i] = blockedIn[i * B + c];
      }
    }
  }
}

} // namespace

CUVIL_BLOCKED_KERNELS(reorder, reorder,
                      (const float *x, float *y, int64_t C, int64_t HW, int64_t toBlocked,
                       int64_t begin, int64_t end),
                      (x, y, C, HW, toBlocked, begin, end))
