// Layout kernels for NCHW16c: reorders at the edges of blocked regions and
// pooling on blocked tensors.
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

// Max / average pooling over [N, CB, H, W, 16]; a task is one output row of
// one (n, cb). Parameters as cuvil_pool2d_f32's.
namespace {
enum PoolParam {
  kH,
  kW,
  kOH,
  kOW,
  kKH,
  kKW,
  kSH,
  kSW,
  kPT,
  kPL,
  kPB,
  kPR,
  kDH,
  kDW,
  kIsMax,
  kCountPad
};
}

CUVIL_KERNEL void cuvil_pool_nchwc_f32(const float *x, float *y, const int64_t *p, int64_t begin,
                                       int64_t end) {
  const int64_t H = p[kH], W = p[kW], OH = p[kOH], OW = p[kOW], KH = p[kKH], KW = p[kKW];
  const int64_t SH = p[kSH], SW = p[kSW], PT = p[kPT], PL = p[kPL], DH = p[kDH], DW = p[kDW];
  const bool isMax = p[kIsMax] != 0;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t oh = task % OH, plane = task / OH;
    const float *xp = x + plane * H * W * 16;
    float *yp = y + (plane * OH + oh) * OW * 16;
    const int64_t h0 = oh * SH - PT;
    for (int64_t ow = 0; ow < OW; ++ow) {
      const int64_t w0 = ow * SW - PL;
      v16 acc = isMax ? v16(-__builtin_inff()) : v16(0.0f);
      int64_t count = 0;
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t ih = h0 + kh * DH;
        if (ih < 0 || ih >= H)
          continue;
        for (int64_t kw = 0; kw < KW; ++kw) {
          const int64_t iw = w0 + kw * DW;
          if (iw < 0 || iw >= W)
            continue;
          const v16 v = load16(xp + (ih * W + iw) * 16);
          acc = isMax ? __builtin_elementwise_max(acc, v) : acc + v;
          ++count;
        }
      }
      if (!isMax) {
        if (p[kCountPad]) {
          const int64_t hEnd = h0 + KH > H + p[kPB] ? H + p[kPB] : h0 + KH;
          const int64_t wEnd = w0 + KW > W + p[kPR] ? W + p[kPR] : w0 + KW;
          count = (hEnd - h0) * (wEnd - w0);
        }
        acc = count ? acc * (1.0f / float(count)) : v16(0.0f);
      }
      store16(yp + ow * 16, acc);
    }
  }
}
