// Integer 2-D convolution (ConvInteger, QLinearConv) as the integer GEMM of
// each group's weights, [Mg][Cg KH KW], by the image's patches,
// [Cg KH KW][OH OW], which each task packs from the image (no im2col
// buffer); a depthwise one (Cg = 1) by IntegerDepthwiseTask.h's taps.
// A task is one (image, group, block of output channels, panel of
// 64 output pixels):
//   acc = (w - w_zero)[channels] . (patches(x) - x_zero)[:, pixels]
//         (IntegerGemmTile.h; padding reads as x_zero, so adds nothing)
//   iconv: y[n][m][p] = acc[m][p]
//   qconv: y[n][m][p] = saturate(round_half_even(float(acc[m][p] + bias[m])
//                                * (x_scale * w_scale[m] / y_scale)) + y_zero)
//   qconv_dq: y[n][m][p] = act(float(qconv - y_zero) * y_scale + residual[n][m][p])
//   qconv_q:  y[n][m][p] = saturate(round_half_even(act(float(qconv - y_zero) * y_scale
//                          + float(residual[n][m][p] - r_zero) * r_scale) * (1 / z_scale)) +
//                          z_zero)
// Patch row k = (c, kh, kw) of a panel, output pixel p = (oh, ow):
//   x[c][oh SH - PT + kh DH][ow SW - PL + kw DW], walked a run of output
//   columns of one output row at a time: its left padding, the columns
//   reading inside the row (a converting copy at stride 1), its right
//   padding, with no per-element bounds test.
#include "IntegerDepthwiseTask.h"
#include "IntegerGemmTile.h"
#include "IntegerNarrowTile.h"
#include "QuantizedValue.h"

#include "cuvil/kernels/IntegerConv.h"

using namespace cuvil::kernels;

namespace {

typedef uint8_t u8x64 __attribute__((ext_vector_type(64)));
typedef int8_t i8x64 __attribute__((ext_vector_type(64)));
typedef int16_t i16x64 __attribute__((ext_vector_type(64)));
typedef uint16_t u16x64 __attribute__((ext_vector_type(64)));

template <int N> struct Width {
  static constexpr int value = N;
};

// to[t] = row[SW t] for t in [0, N), N = 4 to 64, SW 1 or 2, reading only
// bytes [0, SW (N - 1)]: at stride 2 two overlapping loads as 16-bit
// words, the second ending on the last byte taken, so that the even bytes
// are the first's low bytes and the second's high ones (vpmovwb); stored
// as one vector, which the panel's quads read back.
template <int N, int SW> CUVIL_INLINE void copyStridedVector(const uint8_t *row, uint8_t *to) {
  typedef uint8_t Bytes __attribute__((ext_vector_type(N)));
  Bytes bytes;
  if constexpr (SW == 1)
    __builtin_memcpy(&bytes, row, N);
  else {
    typedef uint8_t Half __attribute__((ext_vector_type(N / 2)));
    typedef uint16_t Words __attribute__((ext_vector_type(N / 2)));
    Words low, high;
    __builtin_memcpy(&low, row, N);
    __builtin_memcpy(&high, row + N - 1, N); // bytes N - 1 .. 2N - 2
    const Half even = __builtin_convertvector(low, Half);
    const Half odd = __builtin_convertvector(high >> 8, Half);
    __builtin_memcpy(&bytes, &even, N / 2);
    __builtin_memcpy(reinterpret_cast<uint8_t *>(&bytes) + N / 2, &odd, N / 2);
  }
  __builtin_memcpy(to, &bytes, N);
}

// to[t] = row[SW t] for t in [0, n): vectors of the widest of 64, 32, 16,
// 8 or 4 bytes the run fills, the last one overlapping its predecessor;
// runs of fewer than 4 a byte at a time. Stride-2 convolutions' runs are 7
// to 64 pixels (a stem's output rows of 112 cut by the 64-pixel panel),
// and 7 x 7 images' 7, which the loop vectorizer left mostly to its scalar
// remainder (a quarter of a 3x3 stride-2 convolution's time).
template <int SW> CUVIL_INLINE void copyStridedBytes(const uint8_t *row, int64_t n, uint8_t *to) {
  auto copy = [&](auto width) CUVIL_LAMBDA_INLINE {
    constexpr int N = decltype(width)::value;
    for (int64_t t = 0;; t += N) {
      t = t + N < n ? t : n - N;
      copyStridedVector<N, SW>(row + SW * t, to + t);
      if (t + N >= n)
        return;
    }
  };
  if (n >= 64)
    copy(Width<64>{});
  else if (n >= 32)
    copy(Width<32>{});
  else if (n >= 16)
    copy(Width<16>{});
  else if (n >= 8)
    copy(Width<8>{});
  else if (n >= 4)
    copy(Width<4>{});
  else
    for (int64_t t = 0; t < n; ++t)
      to[t] = row[SW * t];
}

// to[t] = convert(row[SW t]) for t in [0, n).
template <typename X, typename T, typename Convert>
CUVIL_INLINE void copyRun(const X *row, int64_t SW, int64_t n, Convert convert, T *to) {
  if constexpr (__is_same(X, uint8_t) && __is_same(T, uint8_t)) { // raw bytes: the identity
    if (SW == 1)
      return copyStridedBytes<1>(row, n, to);
    if (SW == 2)
      return copyStridedBytes<2>(row, n, to);
  }
  if (SW == 1)
    for (int64_t t = 0; t < n; ++t)
      to[t] = convert(row[t]);
  else
    for (int64_t t = 0; t < n; ++t)
      to[t] = convert(row[t * SW]);
}

// Writes patch row k (channel, kh, kw) for output pixels [p0, p0 +
// columns) of the channels at `image` to `to`: convert(x) inside the image,
// `pad` where the window reads padding. The row is filled with `pad` first
// (vector stores) and each output row's run then copies only the columns
// that read inside the image: small images (7 x 7) are mostly border, and
// their padding written a byte at a time was a tenth of a 3x3
// convolution's time.
template <typename X, typename T, typename Convert>
CUVIL_INLINE void packPatchRow(const X *image, const cuvil_window2d &w, int64_t k, int64_t p0,
                               int64_t columns, T pad, Convert convert, T *to) {
  const int64_t taps = w.KH * w.KW;
  const int64_t c = k / taps, tap = k % taps;
  const int64_t kh = tap / w.KW, kw = tap % w.KW;
  const X *plane = image + c * w.IH * w.IW;
  for (int64_t j = 0; j < columns; ++j)
    to[j] = pad;
  int64_t oh = p0 / w.OW, ow = p0 % w.OW;
  for (int64_t j = 0; j < columns;) {
    const int64_t run = columns - j < w.OW - ow ? columns - j : w.OW - ow;
    const int64_t ih = oh * w.SH - w.PT + kh * w.DH;
    // Output columns [inFrom, inTo) of the run read inside the row.
    const int64_t first = ow * w.SW - w.PL + kw * w.DW;
    const int64_t inFrom = first >= 0 ? 0 : (w.SW - 1 - first) / w.SW;
    int64_t inTo = first >= w.IW ? 0 : (w.IW - first + w.SW - 1) / w.SW;
    inTo = inTo < run ? inTo : run;
    if (ih >= 0 && ih < w.IH && inFrom < inTo) {
      const X *row = plane + ih * w.IW + first;
      copyRun(row + inFrom * w.SW, w.SW, inTo - inFrom, convert, to + j + inFrom);
    }
    j += run;
    ow = 0;
    ++oh;
  }
}

// Packs patch rows [k0, k0 + kc) for output pixels [p0, p0 + columns),
// less the zero point (padding reads as the zero point: 0).
template <typename X>
CUVIL_INLINE void packPatches(const X *image, const cuvil_window2d &w, int64_t k0, int64_t kc,
                              int64_t p0, int64_t columns, int32_t zero, IntegerChunk &chunk) {
  packIntegerPairs(kc, columns, chunk, [&](int64_t k, int16_t *to) CUVIL_LAMBDA_INLINE {
    packPatchRow(
        image, w, k0 + k, p0, columns, int16_t(0),
        [&](X value) CUVIL_LAMBDA_INLINE { return int16_t(int32_t(value) - zero); }, to);
  });
}

// Whether patch row k is pixels [p0, p0 + columns) of channel k's plane:
// a 1x1 window at stride 1 without padding.
CUVIL_INLINE bool pointwise(const cuvil_window2d &w) {
  return w.KH == 1 && w.KW == 1 && w.SH == 1 && w.SW == 1 && w.PT == 0 && w.PL == 0 &&
         w.OH == w.IH && w.OW == w.IW;
}

// Whether patch row (c, kh, kw) is channel c's plane shifted by (kh DH -
// PT) IW + kw DW - PL, padding where the tap's row or column falls outside
// the image: stride 1 with output rows as wide as the input's (3x3 "same"
// convolutions), at most kShiftedTaps taps, extents small enough for i16
// coordinates (shiftedTaps).
constexpr int64_t kShiftedTaps = 49; // up to 7 x 7 windows

CUVIL_INLINE bool shiftedPlane(const cuvil_window2d &w) {
  constexpr int64_t limit = 1 << 13;
  return w.SH == 1 && w.SW == 1 && w.OW == w.IW && w.KH * w.KW <= kShiftedTaps && w.IH < limit &&
         w.OH < limit && w.IW < limit && w.PT < limit && w.PL < limit &&
         (w.KH - 1) * w.DH < limit && (w.KW - 1) * w.DW < limit;
}

// Each tap's shift and the panel columns it reads inside the image (0xff)
// rather than padding (0).
struct ShiftedTaps {
  int64_t shift[kShiftedTaps];
  u8x64 inside[kShiftedTaps];
};

// The taps for the panel's pixels [p0, p0 + columns), taken once per
// task: the output pixels as i16 rows and columns, a column past
// `columns` at row 2^14, which no tap reaches (its taps read as padding).
CUVIL_INLINE void shiftedTaps(const cuvil_window2d &w, int64_t p0, int64_t columns,
                              ShiftedTaps &taps) {
  // Written as arrays, then loaded: LLVM inserts vector elements in a loop
  // by storing and reloading the whole vector (a fifth of a 56 x 56
  // convolution's time).
  int16_t rows[kIntegerPanel], cols[kIntegerPanel];
  for (int64_t j = 0, oh = p0 / w.OW, ow = p0 % w.OW; j < kIntegerPanel; ++j) {
    rows[j] = int16_t(j < columns ? oh : 1 << 14);
    cols[j] = int16_t(ow);
    if (++ow == w.OW) {
      ow = 0;
      ++oh;
    }
  }
  i16x64 oh, ow;
  __builtin_memcpy(&oh, rows, sizeof(oh));
  __builtin_memcpy(&ow, cols, sizeof(ow));
  for (int64_t tap = 0; tap < w.KH * w.KW; ++tap) {
    const int64_t dy = tap / w.KW * w.DH - w.PT, dx = tap % w.KW * w.DW - w.PL;
    taps.shift[tap] = dy * w.IW + dx;
    // Unsigned compares: a coordinate below 0 wraps above the extent.
    const u16x64 ih = __builtin_bit_cast(u16x64, oh + int16_t(dy));
    const u16x64 iw = __builtin_bit_cast(u16x64, ow + int16_t(dx));
    taps.inside[tap] = __builtin_bit_cast(
        u8x64, __builtin_convertvector((ih < uint16_t(w.IH)) & (iw < uint16_t(w.IW)), i8x64));
  }
}

// Patch row k of a shifted-plane window for the panel's 64 columns: one
// 64-byte load of the shifted plane, the zero point blended in where the
// tap reads padding, where the run walk copied 7 bytes at a time on a
// 7 x 7 image (and its short stores, read back as the quads' 8-byte
// loads, could not be forwarded: a third of such a convolution's time).
// False where the 64 bytes would leave the group's `extent` bytes at
// `image` (the walk takes those rows).
CUVIL_INLINE bool packShiftedRow(const uint8_t *image, int64_t extent, const cuvil_window2d &w,
                                 const ShiftedTaps &taps, int64_t k, int64_t p0, u8x64 zero,
                                 uint8_t *to) {
  const int64_t perChannel = w.KH * w.KW, c = k / perChannel, tap = k % perChannel;
  const int64_t first = c * w.IH * w.IW + p0 + taps.shift[tap];
  if (first < 0 || first + kIntegerPanel > extent)
    return false;
  u8x64 shifted;
  __builtin_memcpy(&shifted, image + first, sizeof(shifted));
  const u8x64 row = (shifted & taps.inside[tap]) | (zero & ~taps.inside[tap]);
  __builtin_memcpy(to, &row, sizeof(row));
  return true;
}

// Whether a panel's patch rows are shifted planes: those of a shifted-plane
// window but a pointwise one's full panel (one fixed-size copy a row). A
// pointwise window's last panel, or a small image's only one (7 x 7: runs
// of 7 pixels), is a shifted plane of one tap.
CUVIL_INLINE bool packsShiftedPlanes(const cuvil_window2d &w, int64_t columns) {
  return !(pointwise(w) && columns == kIntegerPanel) && shiftedPlane(w);
}

// The same patch rows as raw u8 for the narrow path (padding reads as the
// zero point itself). A pointwise window's full panel row is one
// fixed-size copy (the generic walk copies each output row's run with a
// call to memcpy); with the panel's taps (packsShiftedPlanes; else null)
// a row is a load and a blend.
CUVIL_INLINE void packNarrowPatches(const uint8_t *image, int64_t extent, const cuvil_window2d &w,
                                    int64_t k0, int64_t kc, int64_t p0, int64_t columns,
                                    uint8_t zero, const ShiftedTaps *taps, NarrowChunk &chunk) {
  const bool whole = pointwise(w) && columns == kIntegerPanel;
  packNarrowQuads(kc, chunk, [&](int64_t k, uint8_t *to) CUVIL_LAMBDA_INLINE {
    if (whole)
      __builtin_memcpy(to, image + (k0 + k) * w.IH * w.IW + p0, kIntegerPanel);
    else if (!taps || !packShiftedRow(image, extent, w, *taps, k0 + k, p0, u8x64(zero), to))
      packPatchRow(
          image, w, k0 + k, p0, columns, zero,
          [](uint8_t value) CUVIL_LAMBDA_INLINE { return value; }, to);
  });
}

struct ConvTask {
  int64_t image, m0, rows, p0, columns;
};

// Calls store(task, acc) after accumulating each task.
template <typename X, typename W, typename Store>
CUVIL_INLINE void integerConv(const X *x, const W *w, const X *xZero, const W *wZero,
                              const cuvil_iconv_params &p, int64_t begin, int64_t end,
                              Store store) {
  const cuvil_window2d &win = p.window;
  const int64_t Cg = p.C / p.groups, Mg = p.M / p.groups, K = Cg * win.KH * win.KW;
  const int64_t pixels = win.OH * win.OW, rowBlock = p.blocking.row_block;
  const int64_t rowBlocks = (Mg + rowBlock - 1) / rowBlock;
  const int64_t panels = (pixels + kIntegerPanel - 1) / kIntegerPanel;
  const int32_t imageZero = xZero ? int32_t(*xZero) : 0;
  const bool depthwise = depthwiseInFloat(p); // IntegerDepthwiseTask.h
  // The narrow path's zero-point corrections for the block of output
  // channels starting at correctedM0: tasks walk the panels of a block
  // one after another, so each block's weight sums are taken once (per
  // task they were a tenth of a 3x3 convolution's time), and not at all
  // for a zero point of 0 (an image after ReLU).
  uint32_t corrections[CUVIL_IGEMM_MAX_ROW_BLOCK];
  int64_t correctedM0 = -1;
  // The narrow path's packed operands; the weight rows of block packedM0
  // stay packed for the tasks after while K fits one chunk.
  NarrowChunk chunk;
  int64_t packedM0 = -1;
  ShiftedTaps taps;
  for (int64_t task = begin; task < end; ++task) {
    int64_t rest = task;
    const int64_t panel = rest % panels;
    rest /= panels;
    const int64_t block = rest % rowBlocks;
    rest /= rowBlocks;
    const int64_t group = rest % p.groups, image = rest / p.groups;
    ConvTask t{image, group * Mg + block * rowBlock, 0, panel * kIntegerPanel, 0};
    t.rows = Mg - block * rowBlock < rowBlock ? Mg - block * rowBlock : rowBlock;
    t.columns = pixels - t.p0 < kIntegerPanel ? pixels - t.p0 : kIntegerPanel;
    const X *groupImage = x + (image * p.C + group * Cg) * win.IH * win.IW;
    IntegerAccumulators acc;
    if (depthwise) {
      accumulateDepthwiseTask(groupImage, win, imageZero, w + t.m0 * K,
                              wZero ? wZero + t.m0 * p.w_zero_stride : nullptr, p.w_zero_stride,
                              t.rows, t.p0, t.columns, acc);
      store(t, acc, pixels);
      continue;
    }
    if constexpr (sizeof(X) == 1 && X(-1) > X(0) && W(-1) < W(0)) { // u8 image, i8 weights
      if (p.products != CUVIL_PRODUCTS_WORDS && K > 0) {
        const int8_t *weights = reinterpret_cast<const int8_t *>(w + t.m0 * K);
        if (imageZero != 0 && correctedM0 != t.m0) {
          narrowZeroCorrections(weights, t.rows, K, imageZero, corrections);
          correctedM0 = t.m0;
        }
        const bool rowsPacked = packedM0 == t.m0;
        packedM0 = t.m0;
        const bool shifted = packsShiftedPlanes(win, t.columns);
        if (shifted)
          shiftedTaps(win, t.p0, t.columns, taps);
        accumulateNarrowTask(
            p.blocking, p.products, weights, t.rows, t.columns, K,
            imageZero != 0 ? corrections : nullptr,
            [&](int64_t k0, int64_t kc, NarrowChunk &chunk) {
              packNarrowPatches(groupImage, Cg * win.IH * win.IW, win, k0, kc, t.p0, t.columns,
                                uint8_t(imageZero), shifted ? &taps : nullptr, chunk);
            },
            chunk, rowsPacked, acc);
        store(t, acc, pixels);
        continue;
      }
    }
    accumulateIntegerTask(
        p.blocking, t.rows, t.columns, K,
        [&](int64_t k0, int64_t kc, IntegerChunk &chunk) {
          packIntegerRows(w + t.m0 * K, K, t.rows, k0, kc,
                          wZero ? wZero + t.m0 * p.w_zero_stride : nullptr, p.w_zero_stride, chunk);
        },
        [&](int64_t k0, int64_t kc, IntegerChunk &chunk) {
          packPatches(groupImage, win, k0, kc, t.p0, t.columns, imageZero, chunk);
        },
        acc);
    store(t, acc, pixels);
  }
}

template <typename X, typename W>
CUVIL_INLINE void iconv(const X *x, const W *w, const X *xZero, const W *wZero, int32_t *y,
                        const cuvil_iconv_params *params, int64_t begin, int64_t end) {
  const cuvil_iconv_params &p = *params;
  integerConv(x, w, xZero, wZero, p, begin, end,
              [&](const ConvTask &t, const IntegerAccumulators &acc, int64_t pixels)
                  CUVIL_LAMBDA_INLINE {
                    for (int64_t r = 0; r < t.rows; ++r) {
                      int32_t *out = y + (t.image * p.M + t.m0 + r) * pixels + t.p0;
                      for (int64_t j = 0; j < t.columns; ++j)
                        out[j] = acc.at(r, j);
                    }
                  });
}

// Requantizes each accumulator and hands it on: emit(flat, c) with the
// flat output index and the quantized value less its zero point, c = q -
// y_zero, as a float (roundToCentered).
template <typename X, typename W, typename Y, typename Emit>
CUVIL_INLINE void requantizedConv(const X *x, const float *xScale, const X *xZero, const W *w,
                                  const float *wScale, const W *wZero, const float *yScale,
                                  const Y *yZero, const int32_t *bias, const cuvil_iconv_params &p,
                                  int64_t begin, int64_t end, Emit emit) {
  const float imageScale = *xScale, outScale = *yScale;
  const int32_t outZero = *yZero;
  integerConv(
      x, w, xZero, wZero, p, begin, end,
      [&](const ConvTask &t, const IntegerAccumulators &acc, int64_t pixels) CUVIL_LAMBDA_INLINE {
        for (int64_t r = 0; r < t.rows; ++r) {
          const int64_t m = t.m0 + r;
          const float multiplier = imageScale * wScale[m * p.w_scale_stride] / outScale;
          const uint32_t offset = bias ? uint32_t(bias[m]) : 0u;
          const int64_t first = (t.image * p.M + m) * pixels + t.p0;
          for (int64_t j = 0; j < t.columns; ++j) {
            const int32_t value = int32_t(uint32_t(acc.at(r, j)) + offset);
            emit(first + j, roundToCentered<QuantizedRange<Y>::low, QuantizedRange<Y>::high>(
                                float(value) * multiplier, outZero));
          }
        }
      });
}

template <typename X, typename W, typename Y>
CUVIL_INLINE void qconv(const X *x, const float *xScale, const X *xZero, const W *w,
                        const float *wScale, const W *wZero, const float *yScale, const Y *yZero,
                        const int32_t *bias, Y *y, const cuvil_iconv_params *params, int64_t begin,
                        int64_t end) {
  const int32_t outZero = *yZero;
  requantizedConv(x, xScale, xZero, w, wScale, wZero, yScale, yZero, bias, *params, begin, end,
                  [&](int64_t i, float centered)
                      CUVIL_LAMBDA_INLINE { y[i] = Y(int32_t(centered) + outZero); });
}

template <typename X, typename W, typename Y>
CUVIL_INLINE void qconvDequantized(const X *x, const float *xScale, const X *xZero, const W *w,
                                   const float *wScale, const W *wZero, const float *yScale,
                                   const Y *yZero, const int32_t *bias, const float *residual,
                                   float *y, const cuvil_qconv_dq_params *params, int64_t begin,
                                   int64_t end) {
  const float outScale = *yScale;
  const cuvil_unary &act = params->activation;
  requantizedConv(x, xScale, xZero, w, wScale, wZero, yScale, yZero, bias, params->conv, begin, end,
                  [&](int64_t i, float centered) CUVIL_LAMBDA_INLINE {
                    const float value = centered * outScale;
                    y[i] = applyUnary(act, residual ? value + residual[i] : value);
                  });
}

// The same epilogue in the quantized domain (cuvil.FusedQLinearConv with
// its QuantizeLinear and its residual's DequantizeLinear absorbed): the
// residual read as 8 bits, the result written as 8 bits, a quarter of the
// f32 epilogue's bytes. The quantization multiplies by 1 / z_scale where
// QuantizeLinear divides: a division per element cost a fifth of a
// pointwise convolution of 64 channels.
template <typename X, typename W, typename Y>
CUVIL_INLINE void qconvQuantized(const X *x, const float *xScale, const X *xZero, const W *w,
                                 const float *wScale, const W *wZero, const float *yScale,
                                 const Y *yZero, const int32_t *bias, const Y *residual,
                                 const float *rScale, const Y *rZero, const float *zScale,
                                 const Y *zZero, Y *y, const cuvil_qconv_dq_params *params,
                                 int64_t begin, int64_t end) {
  const float outScale = *yScale, residualScale = residual ? *rScale : 0.0f;
  const float inverseResultScale = 1.0f / *zScale;
  const int32_t residualZero = residual ? int32_t(*rZero) : 0, resultZero = *zZero;
  const cuvil_unary &act = params->activation;
  requantizedConv(x, xScale, xZero, w, wScale, wZero, yScale, yZero, bias, params->conv, begin, end,
                  [&](int64_t i, float centered) CUVIL_LAMBDA_INLINE {
                    float value = centered * outScale;
                    if (residual)
                      value += float(int32_t(residual[i]) - residualZero) * residualScale;
                    y[i] = roundToQuantized<Y, QuantizedRange<Y>::low, QuantizedRange<Y>::high>(
                        applyUnary(act, value) * inverseResultScale, resultZero);
                  });
}

} // namespace

#define CUVIL_DEFINE_ICONV(xn, X, wn, W)                                                           \
  CUVIL_KERNEL void cuvil_iconv_##xn##_##wn(                                                       \
      const X *x, const W *w, const X *x_zero, const W *w_zero, int32_t *y,                        \
      const cuvil_iconv_params *p, int64_t begin, int64_t end) {                                   \
    iconv(x, w, x_zero, w_zero, y, p, begin, end);                                                 \
  }
CUVIL_IGEMM_TYPES(CUVIL_DEFINE_ICONV)

#define CUVIL_DEFINE_QCONV(xn, X, wn, W, yn, Y)                                                    \
  CUVIL_KERNEL void cuvil_qconv_##xn##_##wn##_##yn(                                                \
      const X *x, const float *x_scale, const X *x_zero, const W *w, const float *w_scale,         \
      const W *w_zero, const float *y_scale, const Y *y_zero, const int32_t *bias, Y *y,           \
      const cuvil_iconv_params *p, int64_t begin, int64_t end) {                                   \
    qconv(x, x_scale, x_zero, w, w_scale, w_zero, y_scale, y_zero, bias, y, p, begin, end);        \
  }
CUVIL_QGEMM_TYPES(CUVIL_DEFINE_QCONV)

#define CUVIL_DEFINE_QCONV_DQ(xn, X, wn, W, yn, Y)                                                 \
  CUVIL_KERNEL void cuvil_qconv_dq_##xn##_##wn##_##yn(                                             \
      const X *x, const float *x_scale, const X *x_zero, const W *w, const float *w_scale,         \
      const W *w_zero, const float *y_scale, const Y *y_zero, const int32_t *bias,                 \
      const float *residual, float *y, const cuvil_qconv_dq_params *p, int64_t begin,              \
      int64_t end) {                                                                               \
    qconvDequantized(x, x_scale, x_zero, w, w_scale, w_zero, y_scale, y_zero, bias, residual, y,   \
                     p, begin, end);                                                               \
  }
CUVIL_QGEMM_TYPES(CUVIL_DEFINE_QCONV_DQ)

#define CUVIL_DEFINE_QCONV_Q(xn, X, wn, W, yn, Y)                                                  \
  CUVIL_KERNEL void cuvil_qconv_q_##xn##_##wn##_##yn(                                              \
      const X *x, const float *x_scale, const X *x_zero, const W *w, const float *w_scale,         \
      const W *w_zero, const float *y_scale, const Y *y_zero, const int32_t *bias,                 \
      const Y *residual, const float *r_scale, const Y *r_zero, const float *z_scale,              \
      const Y *z_zero, Y *y, const cuvil_qconv_dq_params *p, int64_t begin, int64_t end) {         \
    qconvQuantized(x, x_scale, x_zero, w, w_scale, w_zero, y_scale, y_zero, bias, residual,        \
                   r_scale, r_zero, z_scale, z_zero, y, p, begin, end);                            \
  }
CUVIL_QGEMM_TYPES(CUVIL_DEFINE_QCONV_Q)
