// A depthwise integer convolution's task (one input channel per group):
// the accumulators of `rows` output channels over one input plane by a
// panel of up to 64 output pixels, for IntegerConv.cpp's epilogues. The
// integer GEMM would see a K of KH x KW (9) per panel it packs anew and a
// single row of weights; here the image is widened to f32 once per task
// and the taps multiply-add 8 pixels at a time.
//
// The arithmetic is f32 and exact: |x - x_zero| and |w - w_zero| are at
// most 255, so each product is an integer below 2^16, and sums of at most
// kDepthwiseMaxTaps of them (every partial sum of every order) stay below
// 2^24, where f32 holds integers exactly: the result is the i32
// accumulation's.
//
// The panel's pixels fall in runs of output rows; the task computes them in
// chunks of R output rows by output columns [c0, c1): one chunk of whole
// rows where rows are narrow (at most 32 pixels: a panel spans several),
// else a chunk per run. Each chunk widens, for every kh and phase s < SW,
// the R input rows it reads into rows of L = c1 - c0 + (KW - 1) DW / SW
// floats laid end to end, so that a tap's reads for the whole chunk are one
// contiguous stream (the columns past c1 of each row compute values that
// are not kept):
//   wide[kh][s][rr][i] = x[(oh0 + rr) SH - PT + kh DH][(c0 + i) SW - PL + s] - x_zero
//                        (0 outside the image; at SH = 1 each input row once, kh's
//                        rows kh DH rows on)
//   for r in rows, q in [0, R L) step 8:
//     sum[q..] = sum over kh, kw of (w[r][kh][kw] - w_zero[r])
//                * wide[kh][(kw DW) mod SW][q + (kw DW) / SW ..]
//     acc[r][pixel (oh0 + q / L, c0 + q mod L)] = sum[q]   (for the panel's pixels)
#pragma once

#include "IntegerGemmTile.h"
#include "Vector.h"

#include "cuvil/kernels/IntegerConv.h"

namespace cuvil::kernels {

// 128 taps x 255 x 255 < 2^23: any partial sum's magnitude, however the
// positive and negative products order, stays within f32's exact integers.
constexpr int64_t kDepthwiseMaxTaps = 128;
// A chunk's widened rows and its sums, on the stack (16 KB and 8 KB).
constexpr int64_t kDepthwiseBufferFloats = 4096;
constexpr int64_t kDepthwiseSums = 2048;
// Output rows this narrow are computed whole, several to a chunk.
constexpr int64_t kDepthwiseNarrowRow = 32;

// Floats a chunk of R rows of `columns` output columns takes: L per row
// and phase, and L + 8 past the end that the last vectors' taps read.
CUVIL_INLINE int64_t depthwiseRowFloats(const cuvil_window2d &w, int64_t columns) {
  return columns + (w.KW - 1) * w.DW / w.SW;
}
// Input rows a chunk of R output rows widens per phase: at vertical stride
// 1 each input row once (tap row kh reads kh DH rows further on), else
// R for each kh.
CUVIL_INLINE int64_t depthwiseWideRows(const cuvil_window2d &w, int64_t R) {
  return w.SH == 1 ? R + (w.KH - 1) * w.DH : w.KH * R;
}
CUVIL_INLINE bool depthwiseChunkFits(const cuvil_window2d &w, int64_t R, int64_t columns) {
  const int64_t L = depthwiseRowFloats(w, columns);
  return w.SW * depthwiseWideRows(w, R) * L + L + 8 <= kDepthwiseBufferFloats &&
         R * L + 8 <= kDepthwiseSums;
}

// Whether the convolution takes this path: one input channel per group,
// taps the f32 sums hold exactly, and a chunk of one run of a full panel
// fits the buffers.
CUVIL_INLINE bool depthwiseInFloat(const cuvil_iconv_params &p) {
  const cuvil_window2d &w = p.window;
  return p.C == p.groups && w.KH * w.KW <= kDepthwiseMaxTaps && w.SW >= 1 && w.SW <= 4 &&
         depthwiseChunkFits(w, 1, kIntegerPanel);
}

// to[i] = from[s i] - zero for i in [0, count): 8 a vector at strides 1
// and 2 (SW the constant; the last vector overlapping its predecessor),
// one at a time at any other (SW 0, `stride` gives it) or below 8.
template <int SW, typename X>
CUVIL_INLINE void widenRun(const X *from, int64_t stride, int64_t count, float zero, float *to) {
  const int64_t s = SW ? SW : stride;
  if constexpr (SW == 1 || SW == 2) {
    typedef X X8 __attribute__((ext_vector_type(8)));
    if (count >= 8) {
      for (int64_t i = 0;; i += 8) {
        i = i + 8 < count ? i : count - 8;
        X8 bytes;
        if constexpr (SW == 1) {
          __builtin_memcpy(&bytes, from + i, 8);
        } else { // two overlapping loads ending on the eighth column: no read past it
          X8 low, high;
          __builtin_memcpy(&low, from + 2 * i, 8);
          __builtin_memcpy(&high, from + 2 * i + 7, 8);
          bytes = __builtin_shufflevector(low, high, 0, 2, 4, 6, 9, 11, 13, 15);
        }
        storeV(to + i, __builtin_convertvector(bytes, v8) - zero);
        if (i + 8 >= count)
          return;
      }
    }
  }
  for (int64_t i = 0; i < count; ++i)
    to[i] = float(int32_t(from[s * i])) - zero;
}

// to[i] = x[row][first + SW i] - zero for i in [0, L), 0 outside [0, IW)
// (or everywhere, for a row outside the image).
template <typename X>
CUVIL_INLINE void widenRow(const X *plane, const cuvil_window2d &win, int64_t ih, int64_t first,
                           int64_t L, float zero, float *to) {
  const int64_t s = win.SW;
  int64_t lo = 0, hi = 0; // [lo, hi): columns inside the row
  if (ih >= 0 && ih < win.IH) {
    lo = first >= 0 ? 0 : (-first + s - 1) / s;
    hi = first >= win.IW ? 0 : (win.IW - first + s - 1) / s;
    lo = lo < L ? lo : L;
    hi = hi < L ? hi : L;
    hi = hi > lo ? hi : lo;
  }
  for (int64_t i = 0; i < lo; ++i)
    to[i] = 0.0f;
  const X *from = plane + (hi > lo ? ih * win.IW + first + s * lo : 0);
  if (s == 1)
    widenRun<1>(from, 1, hi - lo, zero, to + lo);
  else if (s == 2)
    widenRun<2>(from, 2, hi - lo, zero, to + lo);
  else
    widenRun<0>(from, s, hi - lo, zero, to + lo);
  for (int64_t i = hi; i < L; ++i)
    to[i] = 0.0f;
}

// sums[q] for q in [0, count), rounded up to whole vectors:
//   sum over kh, kw of w[kh][kw] * wide[kh * khStride + tapOffsets[kw] + q]
// KH x KW constant (3 x 3, 5 x 5: the taps unrolled, their weights held in
// registers across the chunk) or 0 x 0 (the window's, loops).
template <int KH, int KW>
CUVIL_INLINE void multiplyTaps(const cuvil_window2d &win, const float *wide, int64_t khStride,
                               const int64_t *tapOffsets, const float *tapWeights, int64_t count,
                               int32_t *sums) {
  for (int64_t q = 0; q < count; q += 8) {
    v8 sum = 0.0f;
    if constexpr (KH > 0) {
#pragma clang loop unroll(full)
      for (int64_t i = 0; i < KH; ++i)
#pragma clang loop unroll(full)
        for (int64_t j = 0; j < KW; ++j)
          sum += tapWeights[i * KW + j] * loadV<v8>(wide + i * khStride + tapOffsets[j] + q);
    } else {
      for (int64_t i = 0; i < win.KH; ++i)
        for (int64_t j = 0; j < win.KW; ++j)
          sum += tapWeights[i * win.KW + j] * loadV<v8>(wide + i * khStride + tapOffsets[j] + q);
    }
    const i32x8 exact = __builtin_convertvector(sum, i32x8);
    __builtin_memcpy(sums + q, &exact, sizeof(exact));
  }
}

// One chunk: output rows [oh0, oh0 + R), columns [c0, c1), into the
// accumulators of the panel's pixels among them (panel pixel j is output
// pixel p0 + j).
template <typename X, typename W>
CUVIL_INLINE void depthwiseChunk(const X *plane, const cuvil_window2d &win, float zero,
                                 const W *weights, const W *wZero, int64_t wZeroStride,
                                 int64_t rows, int64_t p0, int64_t columns, int64_t oh0, int64_t R,
                                 int64_t c0, int64_t c1, IntegerAccumulators &acc) {
  float wide[kDepthwiseBufferFloats] __attribute__((aligned(32)));
  int32_t sums[kDepthwiseSums] __attribute__((aligned(32)));
  const int64_t L = depthwiseRowFloats(win, c1 - c0), count = R * L;
  const int64_t wideRows = depthwiseWideRows(win, R), phaseStride = wideRows * L;
  // Stride 1: wide[s][i] is input row oh0 - PT + i; else wide[kh][s][rr],
  // input row (oh0 + rr) SH - PT + kh DH.
  const bool shared = win.SH == 1;
  const int64_t khStride = shared ? win.DH * L : win.SW * R * L;
  const int64_t sStride = shared ? phaseStride : R * L;
  for (int64_t s = 0; s < win.SW; ++s)
    for (int64_t i = 0; i < wideRows; ++i) {
      const int64_t kh = shared ? 0 : i / R, rr = shared ? i : i % R;
      widenRow(plane, win, (oh0 + rr) * win.SH - win.PT + kh * win.DH, c0 * win.SW - win.PL + s, L,
               zero, wide + kh * khStride + s * sStride + rr * L);
    }
  for (int64_t i = 0; i < L + 8; ++i) // what the last vectors' taps read past the end
    wide[win.SW * phaseStride + i] = 0.0f;
  int64_t tapOffsets[kDepthwiseMaxTaps];
  for (int64_t kw = 0; kw < win.KW; ++kw)
    tapOffsets[kw] = kw * win.DW % win.SW * sStride + kw * win.DW / win.SW;
  const int64_t taps = win.KH * win.KW;
  for (int64_t r = 0; r < rows; ++r) {
    float tapWeights[kDepthwiseMaxTaps];
    const int32_t weightZero = wZero ? int32_t(wZero[r * wZeroStride]) : 0;
    for (int64_t tap = 0; tap < taps; ++tap)
      tapWeights[tap] = float(int32_t(weights[r * taps + tap]) - weightZero);
    if (win.KH == 3 && win.KW == 3)
      multiplyTaps<3, 3>(win, wide, khStride, tapOffsets, tapWeights, count, sums);
    else if (win.KH == 5 && win.KW == 5)
      multiplyTaps<5, 5>(win, wide, khStride, tapOffsets, tapWeights, count, sums);
    else
      multiplyTaps<0, 0>(win, wide, khStride, tapOffsets, tapWeights, count, sums);
    // The panel's pixels in each row: columns [max(c0, its first), min(c1, its end)).
    for (int64_t rr = 0; rr < R; ++rr) {
      const int64_t rowFirst = (oh0 + rr) * win.OW;
      int64_t from = rowFirst + c0 > p0 ? rowFirst + c0 : p0;
      int64_t to = rowFirst + c1 < p0 + columns ? rowFirst + c1 : p0 + columns;
      int32_t *out = acc.values + r * kIntegerPanel + (from - p0);
      const int32_t *in = sums + rr * L + (from - rowFirst - c0);
      for (int64_t i = 0; i < to - from; ++i)
        out[i] = in[i];
    }
  }
}

template <typename X, typename W>
CUVIL_INLINE void accumulateDepthwiseTask(const X *plane, const cuvil_window2d &win,
                                          int32_t imageZero, const W *weights, const W *wZero,
                                          int64_t wZeroStride, int64_t rows, int64_t p0,
                                          int64_t columns, IntegerAccumulators &acc) {
  const float zero = float(imageZero);
  const int64_t ohFirst = p0 / win.OW, ohLast = (p0 + columns - 1) / win.OW;
  const int64_t R = ohLast - ohFirst + 1;
  if (win.OW <= kDepthwiseNarrowRow && depthwiseChunkFits(win, R, win.OW))
    return depthwiseChunk(plane, win, zero, weights, wZero, wZeroStride, rows, p0, columns, ohFirst,
                          R, 0, win.OW, acc);
  for (int64_t oh = ohFirst; oh <= ohLast; ++oh) {
    const int64_t first = oh * win.OW > p0 ? oh * win.OW : p0;
    const int64_t end = (oh + 1) * win.OW < p0 + columns ? (oh + 1) * win.OW : p0 + columns;
    depthwiseChunk(plane, win, zero, weights, wZero, wZeroStride, rows, p0, columns, oh, 1,
                   first - oh * win.OW, end - oh * win.OW, acc);
  }
}

} // namespace cuvil::kernels
