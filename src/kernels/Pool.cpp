// 2-D max and average pooling in blocked NCHWc (an element is the vector of
// one block's B channels; plain NCHW pools as 3-D with one depth, below, so
// that it vectorises along the row). A task is one output row of one
// (n, cb) plane:
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

template <int B>
CUVIL_INLINE void poolBlocked(const float *x, float *y, const cuvil_pool_params *p, int64_t begin,
                              int64_t end) {
  poolRows<Block<B>>(x, y, p, begin, end);
}

CUVIL_BLOCKED_KERNELS(pool, poolBlocked,
                      (const float *x, float *y, const cuvil_pool_params *p, int64_t begin,
                       int64_t end),
                      (x, y, p, begin, end))

// MaxPool's indices, a task per output row of one plane like poolRows:
//   for ow: the first in-bounds window element, then any strictly larger
//           one; y = its value, indices = plane * H * W + its offset
CUVIL_KERNEL void cuvil_maxpool2d_indices_f32(const float *x, float *y, int64_t *indices,
                                              const cuvil_pool_params *p, int64_t column_major,
                                              int64_t begin, int64_t end) {
  const cuvil_window2d &g = p->window;
  const int64_t H = g.IH, W = g.IW, OH = g.OH, OW = g.OW;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t oh = task % OH, plane = task / OH;
    const float *xp = x + plane * H * W;
    const int64_t h0 = oh * g.SH - g.PT, out = (plane * OH + oh) * OW;
    for (int64_t ow = 0; ow < OW; ++ow) {
      const int64_t w0 = ow * g.SW - g.PL;
      float best = -__FLT_MAX__; // ONNX Runtime's value for a window in the padding only
      int64_t bestH = -1, bestW = -1;
      for (int64_t kh = 0; kh < g.KH; ++kh) {
        const int64_t ih = h0 + kh * g.DH;
        if (ih < 0 || ih >= H)
          continue;
        for (int64_t kw = 0; kw < g.KW; ++kw) {
          const int64_t iw = w0 + kw * g.DW;
          if (iw < 0 || iw >= W)
            continue;
          const float v = xp[ih * W + iw];
          if (bestH < 0 || v > best) {
            best = v;
            bestH = ih;
            bestW = iw;
          }
        }
      }
      y[out + ow] = best;
      indices[out + ow] = plane * H * W + (column_major ? bestH + bestW * H : bestH * W + bestW);
    }
  }
}

// MaxUnpool, one task: zero y, then scatter x in order.
CUVIL_KERNEL void cuvil_max_unpool_f32(const float *x, const int64_t *indices, float *y,
                                       int64_t *error, int64_t inputs, int64_t outputs,
                                       int64_t begin, int64_t end) {
  if (begin >= end)
    return;
  for (int64_t i = 0; i < outputs; ++i)
    y[i] = 0.0f;
  for (int64_t i = 0; i < inputs; ++i) {
    const int64_t at = indices[i];
    if (at < 0 || at >= outputs)
      return raiseError(error, 1, at);
    y[at] = x[i];
  }
}

// 3-D max and average pooling in plain NCDHW. A task is one output row
// (plane, od, oh), done kRowChunk columns at a time and one input row of
// the window at a time, so that the innermost loop runs along ow (over x
// contiguously at stride 1) and vectorises:
//   acc[ow] = max: -inf, average: 0
//   for kd, kh with id = od*SD - PF + kd*DD, ih = oh*SH - PT + kh*DH inside:
//     for kw, ow with iw = ow*SW - PL + kw*DW inside [0, IW):
//       max: acc[ow] = max(acc[ow], x[plane, id, ih, iw])   (indices: the
//            first element, then any strictly larger one)
//       average: acc[ow] += x[plane, id, ih, iw]
//   y[plane, od, oh, ow] = max: acc; average: acc / count
// count: the taps inside the input, or with count_include_pad the window
// clipped to the padded input, as the 2-D kernel counts.
namespace {

constexpr int64_t kRowChunk = 256;

enum class Pool3d { Max, MaxIndices, Average };

// The outputs [lo, hi) of [0, outputs) whose tap o*stride + shift lies in
// [0, extent).
CUVIL_INLINE void insideRange(int64_t shift, int64_t stride, int64_t extent, int64_t outputs,
                              int64_t &lo, int64_t &hi) {
  lo = shift >= 0 ? 0 : (-shift + stride - 1) / stride;
  hi = extent - shift <= 0 ? 0 : (extent - shift + stride - 1) / stride;
  lo = lo < outputs ? lo : outputs;
  hi = hi < lo ? lo : (hi < outputs ? hi : outputs);
}

// Taps of a window starting at `start` (k taps, `dilation` apart) inside [0, extent).
CUVIL_INLINE int64_t tapsInside(int64_t start, int64_t k, int64_t dilation, int64_t extent) {
  int64_t count = 0;
  for (int64_t t = 0; t < k; ++t)
    count += start + t * dilation >= 0 && start + t * dilation < extent;
  return count;
}

// The extent of a window of k starting at `start` clipped at `paddedEnd`.
CUVIL_INLINE int64_t clippedWindow(int64_t start, int64_t k, int64_t paddedEnd) {
  return (start + k < paddedEnd ? start + k : paddedEnd) - start;
}

// acc[j] for outputs j of [lo, hi) of one input row xr (iw = j*SW + shift);
// `at` and the flat index rowIndex + iw*indexStep with MaxIndices.
template <Pool3d Mode, typename T>
CUVIL_INLINE void accumulateRow(const T *xr, int64_t SW, int64_t shift, int64_t lo, int64_t hi,
                                T *acc, int64_t *at, int64_t rowIndex, int64_t indexStep) {
  for (int64_t j = lo; j < hi; ++j) {
    const T v = xr[j * SW + shift];
    if constexpr (Mode == Pool3d::Max) {
      if constexpr (sizeof(T) == sizeof(float))
        acc[j] = maxf(acc[j], v);
      else
        acc[j] = v > acc[j] ? v : acc[j];
    } else if constexpr (Mode == Pool3d::Average) {
      acc[j] += v;
    } else {
      const bool take = at[j] < 0 || v > acc[j];
      acc[j] = take ? v : acc[j];
      at[j] = take ? rowIndex + (j * SW + shift) * indexStep : at[j];
    }
  }
}

// The value no element is below: the start of a max window, and what an
// all-padding window (ceil_mode's overhang) gives.
template <typename T> constexpr T kLowest = T(-1) < T(0) ? T(-128) : T(0);
template <> constexpr float kLowest<float> = -__builtin_inff();

// T: float, or int8_t / uint8_t for max pooling (the 8-bit tensors of
// quantized models; average pooling is float only in ONNX).
template <Pool3d Mode, typename T>
CUVIL_INLINE void pool3dRows(const T *x, T *y, int64_t *indices, const cuvil_pool3d_params *p,
                             int64_t begin, int64_t end) {
  const cuvil_window3d &win = p->window;
  const cuvil_window2d &pl = win.plane;
  const int64_t ID = win.ID, IH = pl.IH, IW = pl.IW, OD = win.OD, OH = pl.OH, OW = pl.OW;
  const int64_t SW = pl.SW, volume = ID * IH * IW;
  // The flat index of x[plane, id, ih, iw] is rowIndex + iw * indexStep.
  const int64_t indexStep = p->column_major ? ID * IH : 1;
  T acc[kRowChunk];
  int64_t at[kRowChunk];
  for (int64_t task = begin; task < end; ++task) {
    const int64_t oh = task % OH, od = task / OH % OD, plane = task / OH / OD;
    const int64_t d0 = od * win.SD - win.PF, h0 = oh * pl.SH - pl.PT;
    const T *xp = x + plane * volume;
    const int64_t rowsInside =
        tapsInside(d0, win.KD, win.DD, ID) * tapsInside(h0, pl.KH, pl.DH, IH);
    const int64_t rowsPadded =
        clippedWindow(d0, win.KD, ID + win.PBK) * clippedWindow(h0, pl.KH, IH + pl.PB);
    for (int64_t c0 = 0; c0 < OW; c0 += kRowChunk) {
      const int64_t columns = OW - c0 < kRowChunk ? OW - c0 : kRowChunk;
      for (int64_t j = 0; j < columns; ++j) {
        acc[j] = Mode == Pool3d::Average ? T(0) : kLowest<T>;
        at[j] = -1;
      }
      for (int64_t kd = 0; kd < win.KD; ++kd) {
        const int64_t id = d0 + kd * win.DD;
        if (id < 0 || id >= ID)
          continue;
        for (int64_t kh = 0; kh < pl.KH; ++kh) {
          const int64_t ih = h0 + kh * pl.DH;
          if (ih < 0 || ih >= IH)
            continue;
          const T *xr = xp + (id * IH + ih) * IW;
          const int64_t rowIndex =
              plane * volume + (p->column_major ? id + ih * ID : (id * IH + ih) * IW);
          for (int64_t kw = 0; kw < pl.KW; ++kw) {
            // iw = ow*SW + kw*DW - PL, with ow = c0 + j.
            const int64_t shift = c0 * SW + kw * pl.DW - pl.PL;
            int64_t lo, hi;
            insideRange(shift, SW, IW, columns, lo, hi);
            accumulateRow<Mode>(xr, SW, shift, lo, hi, acc, at, rowIndex, indexStep);
          }
        }
      }
      T *yRow = y + task * OW + c0;
      for (int64_t j = 0; j < columns; ++j) {
        T value = acc[j];
        if constexpr (Mode == Pool3d::Average) {
          const int64_t w0 = (c0 + j) * SW - pl.PL;
          const int64_t count = p->count_include_pad
                                    ? rowsPadded * clippedWindow(w0, pl.KW, IW + pl.PR)
                                    : rowsInside * tapsInside(w0, pl.KW, pl.DW, IW);
          value = count ? value * (1.0f / float(count)) : 0.0f;
        }
        yRow[j] = value;
      }
      if constexpr (Mode == Pool3d::MaxIndices)
        for (int64_t j = 0; j < columns; ++j)
          indices[task * OW + c0 + j] = at[j];
    }
  }
}

} // namespace

// Plain 2-D pooling is 3-D pooling of depth 1: the per-element window walk
// of poolRows would run scalar, one float per window.
CUVIL_KERNEL void cuvil_pool2d_f32(const float *x, float *y, const cuvil_pool_params *p,
                                   int64_t begin, int64_t end) {
  cuvil_pool3d_params depth1{};
  depth1.window = {1, 1, 1, 1, 1, 0, 0, p->window};
  depth1.is_max = p->is_max;
  depth1.count_include_pad = p->count_include_pad;
  if (p->is_max)
    pool3dRows<Pool3d::Max>(x, y, nullptr, &depth1, begin, end);
  else
    pool3dRows<Pool3d::Average>(x, y, nullptr, &depth1, begin, end);
}

template <typename T>
CUVIL_INLINE void maxPool3d(const T *x, T *y, int64_t *indices, const cuvil_pool3d_params *p,
                            int64_t begin, int64_t end) {
  if (indices)
    pool3dRows<Pool3d::MaxIndices>(x, y, indices, p, begin, end);
  else
    pool3dRows<Pool3d::Max>(x, y, indices, p, begin, end);
}

CUVIL_KERNEL void cuvil_pool3d_f32(const float *x, float *y, int64_t *indices,
                                   const cuvil_pool3d_params *p, int64_t begin, int64_t end) {
  if (p->is_max)
    maxPool3d(x, y, indices, p, begin, end);
  else
    pool3dRows<Pool3d::Average>(x, y, indices, p, begin, end);
}

CUVIL_KERNEL void cuvil_maxpool3d_u8(const uint8_t *x, uint8_t *y, int64_t *indices,
                                     const cuvil_pool3d_params *p, int64_t begin, int64_t end) {
  maxPool3d(x, y, indices, p, begin, end);
}

CUVIL_KERNEL void cuvil_maxpool3d_i8(const int8_t *x, int8_t *y, int64_t *indices,
                                     const cuvil_pool3d_params *p, int64_t begin, int64_t end) {
  maxPool3d(x, y, indices, p, begin, end);
}
