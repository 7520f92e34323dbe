// Depthwise convolution (one filter per channel) in NCHWc (B = 16 or 8):
//   x, y, residual: [N, CB, H, W, B]; w: [CB, KH, KW, B]; bias: [CB * B]
// A task is one output row of one channel block, cut into tiles of P pixels:
//   acc[p] = bias[cb]
//   for kh with ih inside, kw:  acc[p] += x[cb][ih][iw(p, kw)][:] * w[cb][kh][kw][:]
//   y[cb][oh][ow+p][:] = act(acc[p] + residual)
// Memory-bound: each FMA needs one input load, so tiles are wide and the
// border pixels (clipped kw range) are done one at a time.
#include "Vector.h"

using namespace cuvil::kernels;

namespace {

enum Param { kCB, kIH, kIW, kOH, kOW, kKH, kKW, kSH, kSW, kPT, kPL, kDH, kDW, kAct, kTileP };

struct Shape {
  int64_t CB, IH, IW, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW;
};

template <int B, int P>
CUVIL_INLINE void tile(const Shape &s, const float *x, const float *w, const float *bias,
                       const float *res, float *y, int64_t oh, int64_t ow0, int64_t kwLo,
                       int64_t kwHi, int64_t act, float alpha, float beta) {
  using V = Block<B>;
  V acc[P];
  V b = bias ? loadV<V>(bias) : V(0.0f);
#pragma clang loop unroll(full)
  for (int p = 0; p < P; ++p)
    acc[p] = b;
  const int64_t iw0 = ow0 * s.SW - s.PL;
  for (int64_t kh = 0; kh < s.KH; ++kh) {
    const int64_t ih = oh * s.SH - s.PT + kh * s.DH;
    if (ih < 0 || ih >= s.IH)
      continue;
    for (int64_t kw = kwLo; kw < kwHi; ++kw) {
      const V wv = loadV<V>(w + (kh * s.KW + kw) * B);
      const float *xp = x + (ih * s.IW + iw0 + kw * s.DW) * B;
#pragma clang loop unroll(full)
      for (int p = 0; p < P; ++p)
        acc[p] += loadV<V>(xp + p * s.SW * B) * wv;
    }
  }
#pragma clang loop unroll(full)
  for (int p = 0; p < P; ++p) {
    const int64_t offset = (oh * s.OW + ow0 + p) * B;
    V v = res ? acc[p] + loadV<V>(res + offset) : acc[p];
    storeV(y + offset, applyUnary<V>(act, v, alpha, beta));
  }
}

template <int B>
CUVIL_INLINE void tileOf(int64_t P, const Shape &s, const float *x, const float *w,
                         const float *bias, const float *res, float *y, int64_t oh, int64_t ow0,
                         int64_t act, float alpha, float beta) {
  switch (P) {
  case 8:
    return tile<B, 8>(s, x, w, bias, res, y, oh, ow0, 0, s.KW, act, alpha, beta);
  case 7:
    return tile<B, 7>(s, x, w, bias, res, y, oh, ow0, 0, s.KW, act, alpha, beta);
  case 6:
    return tile<B, 6>(s, x, w, bias, res, y, oh, ow0, 0, s.KW, act, alpha, beta);
  case 5:
    return tile<B, 5>(s, x, w, bias, res, y, oh, ow0, 0, s.KW, act, alpha, beta);
  case 4:
    return tile<B, 4>(s, x, w, bias, res, y, oh, ow0, 0, s.KW, act, alpha, beta);
  case 3:
    return tile<B, 3>(s, x, w, bias, res, y, oh, ow0, 0, s.KW, act, alpha, beta);
  case 2:
    return tile<B, 2>(s, x, w, bias, res, y, oh, ow0, 0, s.KW, act, alpha, beta);
  default:
    return tile<B, 1>(s, x, w, bias, res, y, oh, ow0, 0, s.KW, act, alpha, beta);
  }
}

// Tasks: (n, cb, oh), oh fastest.
template <int B>
CUVIL_INLINE void dwconvTasks(const float *x, const float *w, const float *bias, const float *res,
                              float *y, const int64_t *p, float alpha, float beta, int64_t begin,
                              int64_t end) {
  const Shape s{p[kCB], p[kIH], p[kIW], p[kOH], p[kOW], p[kKH], p[kKW],
                p[kSH], p[kSW], p[kPT], p[kPL], p[kDH], p[kDW]};
  int64_t owLo = s.PL <= 0 ? 0 : (s.PL + s.SW - 1) / s.SW;
  const int64_t lastStart = s.IW - 1 + s.PL - (s.KW - 1) * s.DW;
  int64_t owHi = lastStart < 0 ? 0 : lastStart / s.SW + 1;
  owHi = owHi < s.OW ? owHi : s.OW;
  owLo = owLo < owHi ? owLo : owHi;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t oh = task % s.OH, plane = task / s.OH, cb = plane % s.CB;
    const float *xp = x + plane * s.IH * s.IW * B;
    const float *wp = w + cb * s.KH * s.KW * B;
    const float *bp = bias ? bias + cb * B : nullptr;
    const float *rp = res ? res + plane * s.OH * s.OW * B : nullptr;
    float *yp = y + plane * s.OH * s.OW * B;
    auto border = [&](int64_t ow) __attribute__((always_inline)) {
      const int64_t iw0 = ow * s.SW - s.PL;
      int64_t kwLo = iw0 >= 0 ? 0 : (-iw0 + s.DW - 1) / s.DW;
      int64_t kwHi = s.IW - iw0 <= 0 ? 0 : (s.IW - iw0 + s.DW - 1) / s.DW;
      kwHi = kwHi < s.KW ? kwHi : s.KW;
      tile<B, 1>(s, xp, wp, bp, rp, yp, oh, ow, kwLo, kwHi < kwLo ? kwLo : kwHi, p[kAct], alpha,
                 beta);
    };
    for (int64_t ow = 0; ow < owLo; ++ow)
      border(ow);
    int64_t ow = owLo;
    const int64_t tileP = p[kTileP];
    for (; ow + tileP <= owHi; ow += tileP)
      tileOf<B>(tileP, s, xp, wp, bp, rp, yp, oh, ow, p[kAct], alpha, beta);
    if (ow < owHi)
      tileOf<B>(owHi - ow, s, xp, wp, bp, rp, yp, oh, ow, p[kAct], alpha, beta);
    for (ow = owHi; ow < s.OW; ++ow)
      border(ow);
  }
}

} // namespace

CUVIL_BLOCKED_KERNELS(dwconv, dwconvTasks,
                      (const float *x, const float *w, const float *bias, const float *res,
                       float *y, const int64_t *p, float alpha, float beta, int64_t begin,
                       int64_t end),
                      (x, w, bias, res, y, p, alpha, beta, begin, end))
