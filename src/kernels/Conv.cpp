// Direct 2-D convolution in NCHW layout, any groups/strides/pads/dilations,
// with a fused epilogue: y = act(conv(x, w) + bias + residual).
//
// A task is one output plane (n, m):
//   y[n, m, :, :] = bias[m]
//   for c in channels of m's group, kh, kw:
//     for oh with ih = oh*SH - PT + kh*DH inside [0, H):
//       for ow in the range where iw = ow*SW - PL + kw*DW is inside [0, W):
//         y[n, m, oh, ow] += w[m, c, kh, kw] * x[n, g*Cg + c, ih, iw]
//   y[n, m] = act(y[n, m] + residual[n, m])
// The innermost loop is unit-stride in y (and in x for stride 1), so it
// vectorises once the shape constants are known.
#include "KernelSupport.h"

#include "cuvil/kernels/Conv.h"

using namespace cuvil::kernels;

namespace {
CUVIL_INLINE int64_t ceilDivNonNeg(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }
} // namespace

CUVIL_KERNEL void cuvil_conv2d_nchw_f32(const float *x, const float *w, const float *bias,
                                        const float *residual, float *y,
                                        const cuvil_conv2d_params *p, int64_t begin, int64_t end) {
  const cuvil_window2d &win = p->window;
  const int64_t C = p->C, H = win.IH, W = win.IW, M = p->M, OH = win.OH, OW = win.OW;
  const int64_t KH = win.KH, KW = win.KW, SH = win.SH, SW = win.SW;
  const int64_t PT = win.PT, PL = win.PL, DH = win.DH, DW = win.DW;
  const int64_t Cg = C / p->groups, Mg = M / p->groups;
  const int64_t planeSize = OH * OW;
  for (int64_t plane = begin; plane < end; ++plane) {
    const int64_t n = plane / M, m = plane % M, g = m / Mg;
    float *yp = y + plane * planeSize;
    const float init = bias ? bias[m] : 0.0f;
    for (int64_t i = 0; i < planeSize; ++i)
      yp[i] = init;
    for (int64_t c = 0; c < Cg; ++c) {
      const float *xc = x + (n * C + g * Cg + c) * H * W;
      const float *wc = w + (m * Cg + c) * KH * KW;
      for (int64_t kh = 0; kh < KH; ++kh) {
        for (int64_t kw = 0; kw < KW; ++kw) {
          const float wv = wc[kh * KW + kw];
          const int64_t shift = kw * DW - PL; // iw = ow*SW + shift
          const int64_t owLo = ceilDivNonNeg(-shift, SW);
          int64_t owHi = W - shift <= 0 ? 0 : (W - shift + SW - 1) / SW;
          owHi = owHi < OW ? owHi : OW;
          for (int64_t oh = 0; oh < OH; ++oh) {
            const int64_t ih = oh * SH - PT + kh * DH;
            if (ih < 0 || ih >= H)
              continue;
            const float *xr = xc + ih * W + shift;
            float *yr = yp + oh * OW;
            for (int64_t ow = owLo; ow < owHi; ++ow)
              yr[ow] += wv * xr[ow * SW];
          }
        }
      }
    }
    const float *rp = residual ? residual + plane * planeSize : nullptr;
    for (int64_t i = 0; i < planeSize; ++i)
      yp[i] = applyUnary(p->activation, yp[i] + (rp ? rp[i] : 0.0f));
  }
}
