// 2-D max and average pooling in NCHW; a task is one (n, c) plane.
//   for oh, ow:
//     window rows ih = oh*SH - PT + kh*DH, cols iw = ow*SW - PL + kw*DW
//     max: max over the window's in-bounds elements
//     avg: sum over in-bounds elements / count, where count includes the
//          padding (but not the ceil_mode overhang) when countIncludePad
#include "KernelSupport.h"

using namespace cuvil::kernels;

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

CUVIL_KERNEL void cuvil_pool2d_f32(const float *x, float *y, const int64_t *p, int64_t begin,
                                   int64_t end) {
  const int64_t H = p[kH], W = p[kW], OH = p[kOH], OW = p[kOW], KH = p[kKH], KW = p[kKW];
  const int64_t SH = p[kSH], SW = p[kSW], PT = p[kPT], PL = p[kPL], DH = p[kDH], DW = p[kDW];
  for (int64_t plane = begin; plane < end; ++plane) {
    const float *xp = x + plane * H * W;
    float *yp = y + plane * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t h0 = oh * SH - PT, w0 = ow * SW - PL;
        float acc = p[kIsMax] ? -__builtin_inff() : 0.0f;
        int64_t count = 0;
        for (int64_t kh = 0; kh < KH; ++kh) {
          const int64_t ih = h0 + kh * DH;
          if (ih < 0 || ih >= H)
            continue;
          for (int64_t kw = 0; kw < KW; ++kw) {
            const int64_t iw = w0 + kw * DW;
            if (iw < 0 || iw >= W)
              continue;
            const float v = xp[ih * W + iw];
            acc = p[kIsMax] ? maxf(acc, v) : acc + v;
            ++count;
          }
        }
        if (!p[kIsMax]) {
          if (p[kCountPad]) {
            // The window clipped to the padded input, as ONNX Runtime counts it.
            int64_t hEnd = h0 + KH > H + p[kPB] ? H + p[kPB] : h0 + KH;
            int64_t wEnd = w0 + KW > W + p[kPR] ? W + p[kPR] : w0 + KW;
            count = (hEnd - h0) * (wEnd - w0);
          }
          acc = count ? acc / float(count) : 0.0f;
        }
        yp[oh * OW + ow] = acc;
      }
    }
  }
}
