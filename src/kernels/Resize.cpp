// Resize (include/cuvil/kernels/Resize.h says what is computed). A task is
// one output row, the coordinates on axes 0..4:
//   nearest upsampling by an integer factor f along a row (column_repeat):
//     y[row, j] = x[row tap + j / f], written as runs of f
//   otherwise, for each chunk of columns [c0, c0 + n) of axis 5:
//     column taps of every j in the chunk: input offsets (index * inner) and
//       weights, tap-major so that the loop over j reads them contiguously
//     for row in [begin, end):
//       row taps: the product over axes 0..4 of each axis's taps
//         (input offset, weight), computed once per row
//       outside (tf_crop_and_resize): the row is the extrapolation value
//       nearest: y[row, j, :] = x[row tap + column tap j, :], or a copy of
//         the previous row when that read the same input row
//       linear, cubic, inner == 1: b[i] = sum over row taps r of
//         w_r x[offset_r + i] over the input columns the chunk reads (one
//         vector loop), then y[row, j] = sum over column taps k of
//         w_jk b[offset_jk]
//       linear, cubic, inner > 1: y[row, j, :] = sum over row taps r and
//         column taps k of w_r w_jk x[offset_r + offset_jk, :] (vectors
//         along inner)
#include "KernelSupport.h"

#include "cuvil/kernels/Resize.h"

using namespace cuvil::kernels;

namespace {

constexpr int kColumnAxis = CUVIL_RESIZE_AXES - 1;

// The taps of one output coordinate on one axis.
struct AxisTaps {
  int64_t index[CUVIL_RESIZE_MAX_WINDOW];
  float weight[CUVIL_RESIZE_MAX_WINDOW];
  bool outside;
};

CUVIL_INLINE int64_t clampIndex(int64_t i, int64_t last) {
  return i < 0 ? 0 : (i > last ? last : i);
}

// The input coordinate of output coordinate j, in ONNX Runtime's float
// operations (no fused multiply-adds), so that nearest rounds ties alike.
// `resized` is the fractional output length scale * in when a scale was
// given, else out: half_pixel_symmetric compares it with out. align_corners
// and tf_crop_and_resize use the output's length, as the spec's
// length_resized and ONNX Runtime do (the ONNX reference uses the fraction).
CUVIL_INLINE float originalCoordinate(const cuvil_resize_params *p, const cuvil_resize_axis &a,
                                      float scale, float resized, int64_t j) {
#pragma clang fp contract(off)
  float x = float(j), in = float(a.in);
  switch (p->coordinate) {
  case CUVIL_RESIZE_HALF_PIXEL_SYMMETRIC: {
    float offset = in / 2 * (1 - float(a.out) / resized);
    return offset + (x + 0.5f) / scale - 0.5f;
  }
  case CUVIL_RESIZE_PYTORCH_HALF_PIXEL:
    return a.out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
  case CUVIL_RESIZE_ALIGN_CORNERS:
    return a.out == 1 ? 0.0f : x * (in - 1) / float(a.out - 1);
  case CUVIL_RESIZE_ASYMMETRIC:
    return x / scale;
  case CUVIL_RESIZE_TF_HALF_PIXEL_FOR_NN:
    return (x + 0.5f) / scale;
  case CUVIL_RESIZE_TF_CROP_AND_RESIZE:
    return a.out == 1 ? (a.roi_start + a.roi_end) * (in - 1) / 2
                      : a.roi_start * (in - 1) +
                            x * (a.roi_end - a.roi_start) * (in - 1) / float(a.out - 1);
  default: // half_pixel
    return (x + 0.5f) / scale - 0.5f;
  }
}

// Half away from zero.
CUVIL_INLINE float roundHalfAway(float x) {
  float t = __builtin_elementwise_trunc(x);
  return absf(x - t) >= 0.5f ? t + copysignf(1.0f, x) : t;
}

CUVIL_INLINE float roundNearest(int64_t rounding, float x) {
  switch (rounding) {
  case CUVIL_RESIZE_FLOOR:
    return __builtin_elementwise_floor(x);
  case CUVIL_RESIZE_CEIL:
    return __builtin_elementwise_ceil(x);
  case CUVIL_RESIZE_ROUND_PREFER_CEIL:
    return roundHalfAway(x);
  default: // round_prefer_floor
    return x == __builtin_elementwise_trunc(x) + 0.5f ? __builtin_elementwise_floor(x)
                                                      : roundHalfAway(x);
  }
}

// The filter at distance d (in input elements times the filter scale).
CUVIL_INLINE float filterWeight(const cuvil_resize_params *p, float d) {
  d = absf(d);
  if (p->mode == CUVIL_RESIZE_LINEAR)
    return d < 1.0f ? 1.0f - d : 0.0f;
  float a = p->cubic_a;
  if (d < 1.0f)
    return ((a + 2.0f) * d - (a + 3.0f)) * d * d + 1.0f;
  if (d < 2.0f)
    return (((d - 5.0f) * d + 8.0f) * d - 4.0f) * a;
  return 0.0f;
}

// The taps of output coordinate j on axis a (a.window of them).
CUVIL_INLINE void axisTaps(const cuvil_resize_params *p, const cuvil_resize_axis &a, int64_t j,
                           AxisTaps &taps) {
  taps.outside = false;
  if (!a.resized) {
    taps.index[0] = j;
    taps.weight[0] = 1.0f;
    return;
  }
  float scale = a.scale != 0.0f ? a.scale : float(a.out) / float(a.in);
  float resized = a.scale != 0.0f ? a.scale * float(a.in) : float(a.out);
  float x = originalCoordinate(p, a, scale, resized, j);
  int64_t last = a.in - 1;
  taps.outside = p->extrapolate && (x < 0.0f || x > float(last));
  if (p->mode == CUVIL_RESIZE_NEAREST) {
    // Clamped first, so that the conversion is defined whatever the scale.
    float clamped = minf(maxf(x, -1.0f), float(a.in));
    taps.index[0] = clampIndex(int64_t(roundNearest(p->rounding, clamped)), last);
    taps.weight[0] = 1.0f;
    return;
  }
  float s = p->antialias && scale < 1.0f ? scale : 1.0f;
  float support = (p->mode == CUVIL_RESIZE_LINEAR ? 1.0f : 2.0f) / s;
  // Beyond support + 1 outside the axis every tap reads its edge.
  x = minf(maxf(x, -support - 1.0f), float(a.in) + support);
  int64_t first = int64_t(__builtin_elementwise_floor(x - support)) + 1;
  float total = 0.0f;
  for (int64_t k = 0; k < a.window; ++k) {
    int64_t i = first + k;
    float w = filterWeight(p, (float(i) - x) * s);
    if (p->exclude_outside && (i < 0 || i > last))
      w = 0.0f;
    taps.index[k] = clampIndex(i, last);
    taps.weight[k] = w;
    total += w;
  }
  if ((p->antialias || p->exclude_outside) && total != 0.0f)
    for (int64_t k = 0; k < a.window; ++k)
      taps.weight[k] /= total;
}

// The taps of one output row over axes 0..4: input offsets and weights,
// their count returned; `outside` is set when a coordinate maps outside.
CUVIL_INLINE int64_t rowTaps(const cuvil_resize_params *p, const int64_t *inStride, int64_t row,
                             int64_t *offset, float *weight, bool &outside) {
  int64_t coordinate[kColumnAxis];
  for (int a = kColumnAxis - 1; a >= 0; --a) {
    coordinate[a] = row % p->axis[a].out;
    row /= p->axis[a].out;
  }
  int64_t count = 1;
  offset[0] = 0;
  weight[0] = 1.0f;
  outside = false;
  AxisTaps taps;
  for (int a = 0; a < kColumnAxis; ++a) {
    const cuvil_resize_axis &axis = p->axis[a];
    axisTaps(p, axis, coordinate[a], taps);
    outside |= taps.outside;
    int64_t window = axis.resized ? axis.window : 1;
    // Each existing tap becomes `window` taps, in place from the back.
    for (int64_t c = count; c-- > 0;) {
      int64_t base = offset[c];
      float w = weight[c];
      for (int64_t k = window; k-- > 0;) {
        offset[c * window + k] = base + taps.index[k] * inStride[a];
        weight[c * window + k] = w * taps.weight[k];
      }
    }
    count *= window;
  }
  return count;
}

// Nearest upsampling by an integer factor along rows of inner == 1.
template <typename T>
CUVIL_INLINE void repeatRows(const T *x, T *y, const cuvil_resize_params *p,
                             const int64_t *inStride, int64_t begin, int64_t end) {
  const int64_t factor = p->column_repeat, width = p->axis[kColumnAxis].in;
  const int64_t rowLength = p->axis[kColumnAxis].out;
  const T fill = T(p->fill_bits);
  int64_t rowOffset[CUVIL_RESIZE_MAX_ROW_TAPS];
  float rowWeight[CUVIL_RESIZE_MAX_ROW_TAPS];
  const T *previousSource = nullptr;
  for (int64_t row = begin; row < end; ++row) {
    bool outside;
    rowTaps(p, inStride, row, rowOffset, rowWeight, outside);
    T *out = y + row * rowLength;
    const T *source = x + rowOffset[0];
    if (p->extrapolate && outside) {
      for (int64_t i = 0; i < rowLength; ++i)
        out[i] = fill;
      previousSource = nullptr;
    } else if (source == previousSource) {
      for (int64_t i = 0; i < rowLength; ++i)
        out[i] = out[i - rowLength];
    } else {
      for (int64_t i = 0; i < width; ++i)
        for (int64_t r = 0; r < factor; ++r)
          out[i * factor + r] = source[i];
      previousSource = source;
    }
  }
}

template <typename T, bool Interpolate>
CUVIL_INLINE void resizeRows(const T *x, T *y, int64_t *error, const cuvil_resize_params *p,
                             int64_t begin, int64_t end) {
  for (int a = 0; a < CUVIL_RESIZE_AXES; ++a)
    if (p->axis[a].in == 0 && p->axis[a].out != 0)
      return raiseError(error, 1, a);
  const int64_t inner = p->inner;
  int64_t inStride[CUVIL_RESIZE_AXES];
  inStride[kColumnAxis] = inner;
  for (int a = kColumnAxis - 1; a >= 0; --a)
    inStride[a] = inStride[a + 1] * p->axis[a + 1].in;
  if constexpr (!Interpolate) {
    if (p->column_repeat > 1 && inner == 1)
      return repeatRows(x, y, p, inStride, begin, end);
  }
  const cuvil_resize_axis &columns = p->axis[kColumnAxis];
  const int64_t window = columns.resized ? columns.window : 1;
  const int64_t chunk = CUVIL_RESIZE_COLUMN_TAPS / window, rowLength = columns.out * inner;
  const T fill = Interpolate ? T(p->extrapolation) : T(p->fill_bits);

  int32_t columnOffset[CUVIL_RESIZE_COLUMN_TAPS];
  [[maybe_unused]] float columnWeight[Interpolate ? CUVIL_RESIZE_COLUMN_TAPS : 1];
  [[maybe_unused]] float blended[Interpolate ? CUVIL_RESIZE_BLEND_COLUMNS : 1];
  bool columnOutside[CUVIL_RESIZE_COLUMN_TAPS];
  int64_t rowOffset[CUVIL_RESIZE_MAX_ROW_TAPS];
  float rowWeight[CUVIL_RESIZE_MAX_ROW_TAPS];
  AxisTaps taps;
  for (int64_t c0 = 0; c0 < columns.out; c0 += chunk) {
    const int64_t n = columns.out - c0 < chunk ? columns.out - c0 : chunk;
    // The input columns the chunk reads: [low, high].
    int32_t low = INT32_MAX, high = 0;
    for (int64_t j = 0; j < n; ++j) {
      axisTaps(p, columns, c0 + j, taps);
      columnOutside[j] = taps.outside;
      for (int64_t k = 0; k < window; ++k) {
        int32_t offset = int32_t(taps.index[k] * inner);
        columnOffset[k * n + j] = offset;
        low = offset < low ? offset : low;
        high = offset > high ? offset : high;
        if constexpr (Interpolate)
          columnWeight[k * n + j] = taps.weight[k];
      }
    }
    const T *previousSource = nullptr;
    for (int64_t row = begin; row < end; ++row) {
      bool outside;
      [[maybe_unused]] int64_t count = rowTaps(p, inStride, row, rowOffset, rowWeight, outside);
      T *out = y + row * rowLength + c0 * inner;
      if (p->extrapolate && outside) {
        for (int64_t i = 0; i < n * inner; ++i)
          out[i] = fill;
        previousSource = nullptr;
        continue;
      }
      if constexpr (!Interpolate) {
        const T *source = x + rowOffset[0];
        if (source == previousSource) {
          // The same input row as the previous output row (upsampling).
          const T *previous = out - rowLength;
          for (int64_t i = 0; i < n * inner; ++i)
            out[i] = previous[i];
          continue;
        }
        previousSource = source;
        if (inner == 1) {
          for (int64_t j = 0; j < n; ++j)
            out[j] = p->extrapolate && columnOutside[j] ? fill : source[columnOffset[j]];
        } else {
          for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < inner; ++i)
              out[j * inner + i] =
                  p->extrapolate && columnOutside[j] ? fill : source[columnOffset[j] + i];
        }
      } else if (inner == 1) {
        // Several row taps: blend them once per input column the chunk
        // reads (a contiguous vector loop), then interpolate along the row
        // from the blend.
        bool blend = count > 1 && high - low < CUVIL_RESIZE_BLEND_COLUMNS;
        if (blend)
          for (int64_t i = low; i <= high; ++i) {
            float sum = 0.0f;
            for (int64_t r = 0; r < count; ++r)
              sum += rowWeight[r] * x[rowOffset[r] + i];
            blended[i - low] = sum;
          }
        if (blend || count == 1) {
          const float *from = blend ? blended : x + rowOffset[0];
          const int64_t shift = blend ? -int64_t(low) : 0;
          const float w = blend ? 1.0f : rowWeight[0];
          for (int64_t j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (int64_t k = 0; k < window; ++k)
              sum += columnWeight[k * n + j] * from[shift + columnOffset[k * n + j]];
            out[j] = p->extrapolate && columnOutside[j] ? fill : w * sum;
          }
        } else {
          for (int64_t j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (int64_t r = 0; r < count; ++r)
              for (int64_t k = 0; k < window; ++k)
                sum += rowWeight[r] * columnWeight[k * n + j] *
                       x[rowOffset[r] + columnOffset[k * n + j]];
            out[j] = p->extrapolate && columnOutside[j] ? fill : sum;
          }
        }
      } else {
        for (int64_t j = 0; j < n; ++j) {
          float *to = out + j * inner;
          if (p->extrapolate && columnOutside[j]) {
            for (int64_t i = 0; i < inner; ++i)
              to[i] = fill;
            continue;
          }
          for (int64_t i = 0; i < inner; ++i)
            to[i] = 0.0f;
          for (int64_t r = 0; r < count; ++r)
            for (int64_t k = 0; k < window; ++k) {
              float w = rowWeight[r] * columnWeight[k * n + j];
              const float *from = x + rowOffset[r] + columnOffset[k * n + j];
              for (int64_t i = 0; i < inner; ++i)
                to[i] += w * from[i];
            }
        }
      }
    }
  }
}

} // namespace

CUVIL_KERNEL void cuvil_resize_f32(const float *x, float *y, int64_t *error,
                                   const cuvil_resize_params *p, int64_t begin, int64_t end) {
  resizeRows<float, true>(x, y, error, p, begin, end);
}

#define CUVIL_DEFINE_RESIZE_NEAREST(size, T)                                                       \
  CUVIL_KERNEL void cuvil_resize_nearest_##size(const T *x, T *y, int64_t *error,                  \
                                                const cuvil_resize_params *p, int64_t begin,       \
                                                int64_t end) {                                     \
    resizeRows<T, false>(x, y, error, p, begin, end);                                              \
  }
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_RESIZE_NEAREST)
