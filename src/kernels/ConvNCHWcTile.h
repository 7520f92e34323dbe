// The register tiles of the direct NCHWc convolution (ConvNCHWc.cpp, whose
// header comment gives the loop nest), shared with the kernels that run
// convolutions on slices of their own scratch (InvertedResidualNCHWc.cpp).
#pragma once

#include "Vector.h"

#include "cuvil/kernels/Conv.h"

namespace cuvil::kernels::conv_nchwc {

// Address steps of one convolution, all compile-time constants once the
// kernel is specialised.
struct Geometry {
  int64_t G, OCB;            // input groups (a grouped convolution's window), output blocks
  int64_t ICB;               // x's input groups (G unless grouped)
  int64_t groupIn, groupOut; // grouped: channels per group in and out; 0: dense
  cuvil_window2d win;        // extents and window
  int64_t CI;                // channels per input group: B, or 1 when plain
  int64_t lastCI;            // channels in the last group
  int64_t GK;                // input groups per step
  int64_t aG, aH, aW;        // x steps per group, input row, input column
  int64_t bG, bKH, bKW, bJ;  // w steps per group, kh, kw, output block
  int64_t xImage, yImage;    // elements per image
  bool borderRuns;           // border pixels in tiles of equal kw range (see row)
};

// Derives the address steps of `g` from its shape fields (G, OCB, win, CI,
// lastCI and GK); `plain` when x is plain NCHW ([C, IH, IW], CI = 1).
template <int B> CUVIL_INLINE Geometry withSteps(Geometry g, bool plain) {
  g.aW = plain ? 1 : B;
  g.aH = g.win.IW * g.aW;
  g.aG = g.win.IH * g.aH;
  g.bKW = plain ? B : B * B;
  g.bKH = g.win.KW * g.bKW;
  g.bG = g.win.KH * g.bKH;
  g.bJ = g.G * g.bG;
  g.xImage = g.ICB * g.aG;
  g.yImage = g.OCB * g.win.OH * g.win.OW * B;
  return g;
}

// A convolution of `groups` input groups (blocks, or channels when
// `plain`) into OCB output blocks over `window`, taken GK groups a step;
// lastCI channels are real in the last group.
template <int B>
CUVIL_INLINE Geometry windowGeometry(int64_t groups, int64_t OCB, const cuvil_window2d &window,
                                     bool plain, int64_t lastCI, int64_t GK) {
  Geometry g{};
  g.G = g.ICB = groups;
  g.OCB = OCB;
  g.win = window;
  g.CI = plain ? 1 : B;
  g.lastCI = plain ? 1 : lastCI;
  g.GK = GK;
  return withSteps<B>(g, plain);
}

// A 1x1, stride-1, unpadded convolution of G input blocks into OCB output
// blocks over rows W pixels wide; x has IH rows per block and y OH (the row
// counts only set the block strides: a caller may address slices of larger
// images, or of scratch).
template <int B>
CUVIL_INLINE Geometry pointwiseGeometry(int64_t G, int64_t IH, int64_t OCB, int64_t OH, int64_t W,
                                        int64_t lastCI) {
  return windowGeometry<B>(G, OCB, {IH, W, OH, W, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0}, false, lastCI, G);
}

// The first input group of output block `ocb`'s window (0 unless grouped).
template <int B> CUVIL_INLINE int64_t windowStart(const Geometry &g, int64_t ocb) {
  return cuvil_conv_window_start(ocb, B, g.groupIn, g.groupOut, g.ICB, g.G);
}

// What one tile call covers besides its pixels: the output blocks from ocb,
// input groups [g0, g1) of their window from input group x0, whether the tile starts from y's
// partial sums (not the first step) and ends with the epilogue (the last step), how many rows
// before output row oh y's row is (a caller keeping output rows in a ring buffer; 0 otherwise), and
// weights to prefetch (or null).
struct Step {
  int64_t ocb, g0, g1;
  bool accumulate, finish;
  int64_t yRowShift;
  WeightPrefetch *prefetch;
  int64_t x0;
};

// P pixels starting at output column ow0 (input column iw0 for kw = 0), J
// output blocks; kw restricted to [kwLo, kwHi) (the whole kernel for interior
// tiles).
template <int B, int P, int J>
CUVIL_TILE void tile(const Geometry &g, const float *x, const float *w, const float *bias,
                     const float *res, float *y, const Step &s, int64_t oh, int64_t ow0,
                     int64_t kwLo, int64_t kwHi, const cuvil_unary &act) {
  using V = Block<B>;
  V acc[P][J];
#pragma clang loop unroll(full)
  for (int j = 0; j < J; ++j) {
    const int64_t offset = (((s.ocb + j) * g.win.OH + oh - s.yRowShift) * g.win.OW + ow0) * B;
    V b = bias ? loadV<V>(bias + (s.ocb + j) * B) : V(0.0f);
#pragma clang loop unroll(full)
    for (int p = 0; p < P; ++p)
      acc[p][j] = s.accumulate ? loadV<V>(y + offset + p * B) : b;
  }
  const int64_t ihBase = oh * g.win.SH - g.win.PT, iwBase = ow0 * g.win.SW - g.win.PL;
  const float *wBlock = w + s.ocb * g.bJ;
  for (int64_t grp = s.g0; grp < s.g1; ++grp) {
    // The last input block may be partly padding, whose weights are zero.
    const int64_t channels = grp + 1 == g.G ? g.lastCI : g.CI;
    for (int64_t kh = 0; kh < g.win.KH; ++kh) {
      const int64_t ih = ihBase + kh * g.win.DH;
      if (ih < 0 || ih >= g.win.IH)
        continue;
      for (int64_t kw = kwLo; kw < kwHi; ++kw) {
        if (s.prefetch)
          s.prefetch->issue();
        const float *xp = x + (s.x0 + grp) * g.aG + ih * g.aH + (iwBase + kw * g.win.DW) * g.aW;
        const float *wp = wBlock + grp * g.bG + kh * g.bKH + kw * g.bKW;
        for (int64_t c = 0; c < channels; ++c) {
          V wv[J];
#pragma clang loop unroll(full)
          for (int j = 0; j < J; ++j)
            wv[j] = loadV<V>(wp + j * g.bJ + c * B);
#pragma clang loop unroll(full)
          for (int p = 0; p < P; ++p) {
            V xv = xp[p * g.win.SW * g.aW + c];
#pragma clang loop unroll(full)
            for (int j = 0; j < J; ++j)
              acc[p][j] += xv * wv[j];
          }
        }
      }
    }
  }
  auto offset = [&](int j, int p) CUVIL_LAMBDA_INLINE {
    return (((s.ocb + j) * g.win.OH + oh - s.yRowShift) * g.win.OW + ow0 + p) * B;
  };
  V value[J * P];
#pragma clang loop unroll(full)
  for (int j = 0; j < J; ++j)
#pragma clang loop unroll(full)
    for (int p = 0; p < P; ++p)
      value[j * P + p] = s.finish && res ? acc[p][j] + loadV<V>(res + offset(j, p)) : acc[p][j];
  if (s.finish)
    applyUnaryEach(act, value);
#pragma clang loop unroll(full)
  for (int j = 0; j < J; ++j)
#pragma clang loop unroll(full)
    for (int p = 0; p < P; ++p)
      storeV(y + offset(j, p), value[j * P + p]);
}

// One tile of P pixels and J blocks (the instances of
// CUVIL_CONV_TILE_INSTANTIATED), P picked at run time from the few values a
// specialised convolution needs.
template <int B, int J>
CUVIL_INLINE void tileOf(int64_t P, const Geometry &g, const float *x, const float *w,
                         const float *bias, const float *res, float *y, const Step &s, int64_t oh,
                         int64_t ow0, int64_t kwLo, int64_t kwHi, const cuvil_unary &act) {
#define CUVIL_TILE_CASE(n)                                                                         \
  case n:                                                                                          \
    if constexpr (CUVIL_CONV_TILE_INSTANTIATED(B, n, J))                                           \
      tile<B, n, J>(g, x, w, bias, res, y, s, oh, ow0, kwLo, kwHi, act);                           \
    else                                                                                           \
      CUVIL_NOT_INSTANTIATED();                                                                    \
    return;
  switch (P) {
    CUVIL_TILE_CASE(1)
    CUVIL_TILE_CASE(2)
    CUVIL_TILE_CASE(3)
    CUVIL_TILE_CASE(4)
    CUVIL_TILE_CASE(5)
    CUVIL_TILE_CASE(6)
    CUVIL_TILE_CASE(7)
    CUVIL_TILE_CASE(8)
    CUVIL_TILE_CASE(9)
    CUVIL_TILE_CASE(10)
    CUVIL_TILE_CASE(11)
    CUVIL_TILE_CASE(12)
    CUVIL_TILE_CASE(13)
    CUVIL_TILE_CASE(14)
  default:
    CUVIL_NOT_INSTANTIATED();
  }
#undef CUVIL_TILE_CASE
}

// One output row of J blocks: border pixels one by one, interior in tiles.
// Every count here derives from constants, so after specialisation only the
// tile widths this convolution needs remain. With g.borderRuns (a window
// wider than the row, as in atrous convolutions, where most pixels are
// border ones) the border pixels go in runs of equal clipped kw range, each
// in tiles of tileP pixels and the rest one by one: every weight vector then
// serves tileP pixels, not one.
template <int B, int J>
CUVIL_INLINE void row(const Geometry &g, int64_t tileP, const float *x, const float *w,
                      const float *bias, const float *res, float *y, const Step &s, int64_t oh,
                      const cuvil_unary &act) {
  // Interior columns: every kw stays inside [0, IW).
  int64_t owLo = g.win.PL <= 0 ? 0 : (g.win.PL + g.win.SW - 1) / g.win.SW;
  const int64_t lastStart =
      g.win.IW - 1 + g.win.PL - (g.win.KW - 1) * g.win.DW; // largest ow*SW allowed
  int64_t owHi = lastStart < 0 ? 0 : lastStart / g.win.SW + 1;
  owHi = owHi < g.win.OW ? owHi : g.win.OW;
  owLo = owLo < owHi ? owLo : owHi;
  const int64_t fullTiles = (owHi - owLo) / tileP, restPixels = (owHi - owLo) % tileP;
  // The kw range [lo, hi) of output column ow that stays inside the input.
  auto kwRange = [&](int64_t ow, int64_t &lo, int64_t &hi) __attribute__((always_inline)) {
    int64_t iw0 = ow * g.win.SW - g.win.PL;
    lo = iw0 >= 0 ? 0 : (-iw0 + g.win.DW - 1) / g.win.DW;
    hi = g.win.IW - iw0 <= 0 ? 0 : (g.win.IW - iw0 + g.win.DW - 1) / g.win.DW;
    hi = hi < g.win.KW ? hi : g.win.KW;
    hi = hi < lo ? lo : hi;
  };
  // Columns [from, to): one by one, or in runs of equal kw range.
  auto border = [&](int64_t from, int64_t to) __attribute__((always_inline)) {
    for (int64_t ow = from; ow < to;) {
      int64_t lo, hi, runLo, runHi, end = ow + 1;
      kwRange(ow, lo, hi);
      if (g.borderRuns)
        for (; end < to; ++end) {
          kwRange(end, runLo, runHi);
          if (runLo != lo || runHi != hi)
            break;
        }
      for (; g.borderRuns && end - ow >= tileP; ow += tileP)
        tileOf<B, J>(tileP, g, x, w, bias, res, y, s, oh, ow, lo, hi, act);
      for (; ow < end; ++ow)
        tile<B, 1, J>(g, x, w, bias, res, y, s, oh, ow, lo, hi, act);
    }
  };
  border(0, owLo);
  for (int64_t t = 0; t < fullTiles; ++t)
    tileOf<B, J>(tileP, g, x, w, bias, res, y, s, oh, owLo + t * tileP, 0, g.win.KW, act);
  if (restPixels)
    tileOf<B, J>(restPixels, g, x, w, bias, res, y, s, oh, owLo + fullTiles * tileP, 0, g.win.KW,
                 act);
  border(owHi, g.win.OW);
}

template <int B>
CUVIL_INLINE void rowOf(int64_t blocks, const Geometry &g, int64_t tileP, const float *x,
                        const float *w, const float *bias, const float *res, float *y,
                        const Step &s, int64_t oh, const cuvil_unary &act) {
  switch (blocks) {
  case 4:
    return row<B, 4>(g, tileP, x, w, bias, res, y, s, oh, act);
  case 3:
    return row<B, 3>(g, tileP, x, w, bias, res, y, s, oh, act);
  case 2:
    return row<B, 2>(g, tileP, x, w, bias, res, y, s, oh, act);
  case 1:
    return row<B, 1>(g, tileP, x, w, bias, res, y, s, oh, act);
  default:
    CUVIL_NOT_INSTANTIATED();
  }
}

} // namespace cuvil::kernels::conv_nchwc
