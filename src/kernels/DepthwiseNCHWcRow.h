// One output row of one channel block of the depthwise NCHWc convolution
// (DepthwiseNCHWc.cpp, whose header comment gives the loop nest), shared with
// kernels that keep the input or output rows in their own scratch
// (InvertedResidualNCHWc.cpp).
#pragma once

#include "Vector.h"

#include "cuvil/kernels/Conv.h"

namespace cuvil::kernels::depthwise_nchwc {

// The window `s`: the image extents IH, IW bound the taps; OW is the row's
// width (OH, PB and PR are not used).
using Shape = cuvil_window2d;

// Where image row ih is in x: x is the whole image (ringRows = 0) or a ring
// buffer holding row ih at ih mod ringRows.
CUVIL_INLINE int64_t xRow(int64_t ih, int64_t ringRows) { return ringRows ? ih % ringRows : ih; }

// The P results of a tile at columns ow0..: y = act(acc + residual).
template <int B, int P>
CUVIL_INLINE void storeDepthwiseTile(Block<B> (&acc)[P], const float *resRow, float *yRow,
                                     int64_t ow0, const cuvil_unary &act) {
#pragma clang loop unroll(full)
  for (int p = 0; p < P; ++p)
    if (resRow)
      acc[p] += loadV<Block<B>>(resRow + (ow0 + p) * B);
  applyUnaryEach(act, acc);
#pragma clang loop unroll(full)
  for (int p = 0; p < P; ++p)
    storeV(yRow + (ow0 + p) * B, acc[p]);
}

// P pixels from output column ow0 of output row oh, kw restricted to
// [kwLo, kwHi). x holds the image rows (IW pixels each), or a ring of
// ringRows of them (xRow); yRow and
// resRow point at the output row.
template <int B, int P>
CUVIL_INLINE void tile(const Shape &s, const float *x, int64_t ringRows, const float *w,
                       const float *bias, const float *resRow, float *yRow, int64_t oh, int64_t ow0,
                       int64_t kwLo, int64_t kwHi, const cuvil_unary &act) {
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
      const float *xp = x + (xRow(ih, ringRows) * s.IW + iw0 + kw * s.DW) * B;
#pragma clang loop unroll(full)
      for (int p = 0; p < P; ++p)
        acc[p] += loadV<V>(xp + p * s.SW * B) * wv;
    }
  }
  storeDepthwiseTile<B, P>(acc, resRow, yRow, ow0, act);
}

// The same for a 3-tap-wide window without dilation at stride S: the
// (P-1)S + 3 input vectors of a kernel row are loaded once for all three
// taps (the tile above loads 3P), which halves the loads that bound it.
template <int B, int P, int S>
CUVIL_INLINE void tile3(const Shape &s, const float *x, int64_t ringRows, const float *w,
                        const float *bias, const float *resRow, float *yRow, int64_t oh,
                        int64_t ow0, const cuvil_unary &act) {
  using V = Block<B>;
  constexpr int kInputs = (P - 1) * S + 3;
  V acc[P];
  V b = bias ? loadV<V>(bias) : V(0.0f);
#pragma clang loop unroll(full)
  for (int p = 0; p < P; ++p)
    acc[p] = b;
  const int64_t iw0 = ow0 * S - s.PL;
  for (int64_t kh = 0; kh < s.KH; ++kh) {
    const int64_t ih = oh * s.SH - s.PT + kh * s.DH;
    if (ih < 0 || ih >= s.IH)
      continue;
    const float *xp = x + (xRow(ih, ringRows) * s.IW + iw0) * B;
    V xs[kInputs];
#pragma clang loop unroll(full)
    for (int i = 0; i < kInputs; ++i)
      xs[i] = loadV<V>(xp + i * B);
#pragma clang loop unroll(full)
    for (int kw = 0; kw < 3; ++kw) {
      const V wv = loadV<V>(w + (kh * 3 + kw) * B);
#pragma clang loop unroll(full)
      for (int p = 0; p < P; ++p)
        acc[p] += xs[p * S + kw] * wv;
    }
  }
  storeDepthwiseTile<B, P>(acc, resRow, yRow, ow0, act);
}

// An interior tile of P pixels (CUVIL_DWCONV_TILE_INSTANTIATED); `reuse`
// takes tile3 (the lowering sets it for 3-tap windows, stride 1 or 2, where
// the inputs fit in registers beside the accumulators).
template <int B>
CUVIL_INLINE void tileOf(int64_t P, bool reuse, const Shape &s, const float *x, int64_t ringRows,
                         const float *w, const float *bias, const float *resRow, float *yRow,
                         int64_t oh, int64_t ow0, const cuvil_unary &act) {
#define CUVIL_DW_TILE_CASE(n)                                                                      \
  case n:                                                                                          \
    if (reuse && s.SW == 1)                                                                        \
      return tile3<B, n, 1>(s, x, ringRows, w, bias, resRow, yRow, oh, ow0, act);                  \
    if (reuse)                                                                                     \
      return tile3<B, n, 2>(s, x, ringRows, w, bias, resRow, yRow, oh, ow0, act);                  \
    return tile<B, n>(s, x, ringRows, w, bias, resRow, yRow, oh, ow0, 0, s.KW, act);
  switch (P) {
    CUVIL_DW_TILE_CASE(8)
    CUVIL_DW_TILE_CASE(7)
    CUVIL_DW_TILE_CASE(6)
    CUVIL_DW_TILE_CASE(5)
    CUVIL_DW_TILE_CASE(4)
    CUVIL_DW_TILE_CASE(3)
    CUVIL_DW_TILE_CASE(2)
    CUVIL_DW_TILE_CASE(1)
  default:
    CUVIL_NOT_INSTANTIATED();
  }
#undef CUVIL_DW_TILE_CASE
}

// Output row oh: border pixels (clipped kw range) one at a time, the
// interior in tiles of tileP pixels.
template <int B>
CUVIL_INLINE void row(const Shape &s, int64_t tileP, bool reuse, const float *x, int64_t ringRows,
                      const float *w, const float *bias, const float *resRow, float *yRow,
                      int64_t oh, const cuvil_unary &act) {
  int64_t owLo = s.PL <= 0 ? 0 : (s.PL + s.SW - 1) / s.SW;
  const int64_t lastStart = s.IW - 1 + s.PL - (s.KW - 1) * s.DW;
  int64_t owHi = lastStart < 0 ? 0 : lastStart / s.SW + 1;
  owHi = owHi < s.OW ? owHi : s.OW;
  owLo = owLo < owHi ? owLo : owHi;
  auto border = [&](int64_t ow) __attribute__((always_inline)) {
    const int64_t iw0 = ow * s.SW - s.PL;
    int64_t kwLo = iw0 >= 0 ? 0 : (-iw0 + s.DW - 1) / s.DW;
    int64_t kwHi = s.IW - iw0 <= 0 ? 0 : (s.IW - iw0 + s.DW - 1) / s.DW;
    kwHi = kwHi < s.KW ? kwHi : s.KW;
    tile<B, 1>(s, x, ringRows, w, bias, resRow, yRow, oh, ow, kwLo, kwHi < kwLo ? kwLo : kwHi, act);
  };
  for (int64_t ow = 0; ow < owLo; ++ow)
    border(ow);
  int64_t ow = owLo;
  for (; ow + tileP <= owHi; ow += tileP)
    tileOf<B>(tileP, reuse, s, x, ringRows, w, bias, resRow, yRow, oh, ow, act);
  if (ow < owHi)
    tileOf<B>(owHi - ow, reuse, s, x, ringRows, w, bias, resRow, yRow, oh, ow, act);
  for (ow = owHi; ow < s.OW; ++ow)
    border(ow);
}

} // namespace cuvil::kernels::depthwise_nchwc
