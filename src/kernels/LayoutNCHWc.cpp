// Reorders at the edges of NCHW16c regions.
#include "Vector.h"

using namespace cuvil::kernels;

// Plain [N, C, HW] <-> blocked [N, CB, HW, 16]; a task is one (n, cb).
// Blocking pads the channels past C with zeros.
//   to blocked:   y[n][cb][i][c] = c + 16 cb < C ? x[n][16 cb + c][i] : 0
//   from blocked: y[n][16 cb + c][i] = x[n][cb][i][c]   (c + 16 cb < C)
CUVIL_KERNEL void cuvil_reorder_nchwc_f32(const float *x, float *y, int64_t C, int64_t HW,
                                          int64_t toBlocked, int64_t begin, int64_t end) {
  const int64_t CB = (C + 15) / 16;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t n = task / CB, cb = task % CB;
    const int64_t channels = C - cb * 16 < 16 ? C - cb * 16 : 16;
    float *blocked = toBlocked ? y + task * HW * 16 : nullptr;
    const float *blockedIn = toBlocked ? nullptr : x + task * HW * 16;
    for (int64_t c = 0; c < 16; ++c) {
      const int64_t plainOffset = (n * C + cb * 16 + c) * HW;
      for (int64_t i = 0; i < HW; ++i) {
        if (toBlocked)
          blocked[i * 16 + c] = c < channels ? x[plainOffset + i] : 0.0f;
        else if (c < channels)
          y[plainOffset + i] = blockedIn[i * 16 + c];
      }
    }
  }
}
