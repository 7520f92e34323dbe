// 2-D max and average pooling, in plain NCHW (an element is a float) or in
// blocked NCHWc (an element is the vector of one block's B channels). A task is one output
// row of one (n, c) or (n, cb) plane:
//   for ow:
//     window rows ih = oh*SH - PT + kh*DH, cols iw = ow*SW - PL + kw*DW
//     max: max over the window's in-bounds elements
//     avg: sum over in-bounds elements / count, where count includes the
//          padding (but not the ceil_mode overhang) when countIncludePad
#include "Vector.h"

#include "cuvil/kernels/Pool.h"

using namespace cuvil::kernels;

namespace {

template <typename T>
CUVIL_INLINE void poolRows(const float *x, float *y, const cuvil_pool_params *p, int64_t begin,
                           int64_t end) {
  constexpr int64_t kLanes = sizeof(T) / sizeof(float);
  const cuvil_window2d &g = p->window;
  const int64_t H = g.IH, W = g.IW, OH = g.OH, OW = g.OW, KH = g.KH, KW = g.KW;
  const int64_t SH = g.SH, SW = g.SW, PT = g.PT, PL = g.PL, DH = g.DH, DW = g.DW;
  const bool isMax = p->is_max != 0;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t oh = task % OH, plane = task / OH;
    const float *xp = x + plane * H * W * kLanes;
    float *yp = y + (plane * OH + oh) * OW * kLanes;
    const int64_t h0 = oh * SH - PT;
    for (int64_t ow = 0; ow < OW; ++ow) {
      const int64_t w0 = ow * SW - PL;
      T acc = isMax ? T(-__builtin_inff()) : T(0.0f);
      int64_t count = 0;
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t ih = h0 + kh * DH;
        if (ih < 0 || ih >= H)
          continue;
        for (int64_t kw = 0; kw < KW; ++kw) {
          const int64_t iw = w0 + kw * DW;
          if (iw < 0 || iw >= W)
            continue;
          const T v = loadV<T>(xp + (ih * W + iw) * kLanes);
          acc = isMax ? maxf(acc, v) : acc + v;
          ++count;
        }
      }
      if (!isMax) {
        if (p->count_include_pad) {
          // The window clipped to the padded input, as ONNX Runtime counts it.
          const int64_t hEnd = h0 + KH > H + g.PB ? H + g.PB : h0 + KH;
          const int64_t wEnd = w0 + KW > W + g.PR ? W + g.PR : w0 + KW;
          count = (hEnd - h0) * (wEnd - w0);
        }
        acc = count ? acc * (1.0f / float(count)) : T(0.0f);
      }
      storeV<T>(yp + ow * kLanes, acc);
    }
  }
}

} // namespace

CUVIL_KERNEL void cuvil_pool2d_f32(const float *x, float *y, const cuvil_pool_params *p,
                                   int64_t begin, int64_t end) {
  poolRows<float>(x, y, p, begin, end);
}

template <int B>
CUVIL_INLINE void poolBlocked(const float *x, float *y, const cuvil_pool_params *p, int64_t begin,
                              int64_t end) {
  poolRows<Block<B>>(x, y, p, begin, end);
}

CUVIL_BLOCKED_KERNELS(pool, poolBlocked,
                      (const float *x, float *y, const cuvil_pool_params *p, int64_t begin,
                       int64_t end),
                      (x, y, p, begin, end))
