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

// Transposed convolution's col2im, a task per output volume (n, oc):
//   y[n, oc] = bias[oc]
//   for id, ih, iw:  row = cols[n, g, (id*IH + ih)*IW + iw, o*KD*KH*KW ...]   (g, o: oc's group
//                                                                            and rank in it)
//     for kd, kh with od = id*SD - PF + kd*DD in [0, OD), oh = ih*SH - PT + kh*DH in [0, OH):
//       for kw with ow = iw*SW - PL + kw*DW in [0, OW):  y[n, oc, od, oh, ow] += row[tap]
// Each volume is written by one task only, so tasks never race.
CUVIL_KERNEL void cuvil_col2im_f32(const float *cols, const float *bias, float *y,
                                   const cuvil_col2im_params *p, int64_t begin, int64_t end) {
  const int64_t OC = p->out_channels, OCg = p->group_channels, groups = OC / OCg;
  const int64_t ID = p->ID, IH = p->IH, IW = p->IW, OD = p->OD, OH = p->OH, OW = p->OW;
  const int64_t KD = p->KD, KH = p->KH, KW = p->KW, taps = KD * KH * KW;
  const int64_t M = OCg * taps, volume = OD * OH * OW;
  for (int64_t task = begin; task < end; ++task) {
    int64_t n = task / OC, oc = task % OC, g = oc / OCg, o = oc % OCg;
    float *out = y + task * volume;
    float b = bias ? bias[oc] : 0.0f;
    for (int64_t i = 0; i < volume; ++i)
      out[i] = b;
    const float *base = cols + (n * groups + g) * ID * IH * IW * M + o * taps;
    for (int64_t id = 0; id < ID; ++id)
      for (int64_t ih = 0; ih < IH; ++ih)
        for (int64_t iw = 0; iw < IW; ++iw) {
          const float *row = base + ((id * IH + ih) * IW + iw) * M;
          for (int64_t kd = 0; kd < KD; ++kd) {
            int64_t od = id * p->SD - p->PF + kd * p->DD;
            if (od < 0 || od >= OD)
              continue;
            for (int64_t kh = 0; kh < KH; ++kh) {
              int64_t oh = ih * p->SH - p->PT + kh * p->DH;
              if (oh < 0 || oh >= OH)
                continue;
              float *outRow = out + (od * OH + oh) * OW;
              const float *tapRow = row + (kd * KH + kh) * KW;
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t ow = iw * p->SW - p->PL + kw * p->DW;
                if (ow >= 0 && ow < OW)
                  outRow[ow] += tapRow[kw];
              }
            }
          }
        }
  }
}
