// Linear quantization, as ONNX Runtime computes it:
//   quantize    v = x / scale, clamped to [low - zp, high - zp] (NaN to the
//               low end), rounded half to even, plus zp
//   dequantize  y = float(x - zp) * scale
// over the data as [outer, axis_dim, inner] (cuvil_quant_layout). A task is
// a range of consecutive elements, walked in runs within which the scale
// entry is fixed or steps by one:
//   for task: flat in [task * task_elements, min(elements, ...)):
//     (o, a, i) = coordinates of flat
//     while flat < stop:
//       n = elements to the end of the row (or of i's block), at most stop
//       s = o so + (a / axis_block) sa + (i / inner_block) si
//       for j < n: y[flat + j] = f(x[flat + j], scale[s + j step], zp[s + j step])
//       advance (o, a, i) by n
// where step is si when scales vary along the row, else 0; each run is a
// loop LLVM vectorises once the specialisation fixes step.
//
// DynamicQuantizeLinear's parameters: min and max in vector accumulators
// started at 0 (the range includes 0), then the uint8 scale and zero point.
// cuvil.DynamicQuantizeRows: a task per row, its parameters, then its
// values quantized while the row is in L1 (multiplied by the inverse
// scale: a division per element would take as long as the rest).
#include "QuantizedValue.h"
#include "Vector.h"

#include "cuvil/kernels/Quantize.h"

using namespace cuvil::kernels;

namespace {

template <typename Q> CUVIL_INLINE float dequantizeValue(Q x, float scale, int32_t zeroPoint) {
  // Wraps for i32 data with a zero point far from it, as the i32 subtraction
  // ONNX Runtime does.
  return float(int32_t(uint32_t(int32_t(x)) - uint32_t(zeroPoint))) * scale;
}

// Calls run(flat, n, entry, step) for each run of the tasks' elements.
template <typename Run>
CUVIL_INLINE void forEachRun(const cuvil_quant_layout &p, int64_t begin, int64_t end, Run run) {
  for (int64_t task = begin; task < end; ++task) {
    int64_t flat = task * p.task_elements;
    int64_t stop = p.elements - flat < p.task_elements ? p.elements : flat + p.task_elements;
    int64_t i = flat % p.inner, row = flat / p.inner;
    int64_t a = row % p.axis_dim, o = row / p.axis_dim;
    while (flat < stop) {
      int64_t n = p.inner - i;
      if (p.inner_block > 1 && p.inner_block - i % p.inner_block < n)
        n = p.inner_block - i % p.inner_block;
      if (stop - flat < n)
        n = stop - flat;
      int64_t entry = o * p.scale_outer_stride + (a / p.axis_block) * p.scale_axis_stride +
                      (i / p.inner_block) * p.scale_inner_stride;
      run(flat, n, entry, p.inner_block == 1 ? p.scale_inner_stride : 0);
      flat += n;
      i += n;
      if (i == p.inner) {
        i = 0;
        if (++a == p.axis_dim) {
          a = 0;
          ++o;
        }
      }
    }
  }
}

// The element loop of one run, with the entry step as a constant.
template <int64_t Step, typename F>
CUVIL_INLINE void runElements(int64_t n, int64_t entry, F element) {
  for (int64_t j = 0; j < n; ++j)
    element(j, entry + j * Step);
}

template <typename F> CUVIL_INLINE void runWithStep(int64_t n, int64_t entry, int64_t step, F f) {
  if (step == 0)
    runElements<0>(n, entry, f);
  else
    runElements<1>(n, entry, f);
}

template <typename Q, int64_t Low, int64_t High>
CUVIL_INLINE void quantize(const float *x, const float *scale, const Q *zeroPoint, Q *y,
                           const cuvil_quant_layout *p, int64_t begin, int64_t end) {
  forEachRun(*p, begin, end, [&](int64_t flat, int64_t n, int64_t entry, int64_t step) {
    const float *from = x + flat;
    Q *to = y + flat;
    runWithStep(n, entry, step, [&](int64_t j, int64_t e) {
      to[j] =
          roundToQuantized<Q, Low, High>(from[j] / scale[e], zeroPoint ? int32_t(zeroPoint[e]) : 0);
    });
  });
}

template <typename Q>
CUVIL_INLINE void dequantize(const Q *x, const float *scale, const Q *zeroPoint, float *y,
                             const cuvil_quant_layout *p, int64_t begin, int64_t end) {
  forEachRun(*p, begin, end, [&](int64_t flat, int64_t n, int64_t entry, int64_t step) {
    const Q *from = x + flat;
    float *to = y + flat;
    runWithStep(n, entry, step, [&](int64_t j, int64_t e) {
      to[j] = dequantizeValue(from[j], scale[e], zeroPoint ? int32_t(zeroPoint[e]) : 0);
    });
  });
}

// One run's uint8 scale and zero point (DynamicQuantizeLinear's rule),
// its range by plain compares (a NaN element is skipped).
CUVIL_INLINE void dynamicQuantParams(const float *x, int64_t elements, float *scale,
                                     uint8_t *zeroPoint) {
  v16 low = 0.0f, high = 0.0f;
  int64_t i = 0;
  for (; i + 16 <= elements; i += 16) {
    v16 v = load16(x + i);
    low = smallerOf(v, low);
    high = largerOf(v, high);
  }
  float lo = 0.0f, hi = 0.0f;
  for (int j = 0; j < 16; ++j) {
    lo = smallerOf(low[j], lo);
    hi = largerOf(high[j], hi);
  }
  for (; i < elements; ++i) {
    lo = smallerOf(x[i], lo);
    hi = largerOf(x[i], hi);
  }
  float s = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  float z = 0.0f - lo / s;
  z = maxf(0.0f, minf(255.0f, z));
  *scale = s;
  *zeroPoint = uint8_t(__builtin_elementwise_roundeven(z));
}

} // namespace

#define CUVIL_DEFINE_QUANTIZE(name, Q, low, high)                                                  \
  CUVIL_KERNEL void cuvil_quantize_f32_##name(                                                     \
      const float *x, const float *scale, const Q *zero_point, Q *y, const cuvil_quant_layout *p,  \
      int64_t begin, int64_t end) {                                                                \
    quantize<Q, low, high>(x, scale, zero_point, y, p, begin, end);                                \
  }
#define CUVIL_DEFINE_DEQUANTIZE(name, Q, low, high)                                                \
  CUVIL_KERNEL void cuvil_dequantize_##name##_f32(                                                 \
      const Q *x, const float *scale, const Q *zero_point, float *y, const cuvil_quant_layout *p,  \
      int64_t begin, int64_t end) {                                                                \
    dequantize<Q>(x, scale, zero_point, y, p, begin, end);                                         \
  }
CUVIL_QUANTIZED_TYPES(CUVIL_DEFINE_QUANTIZE)
CUVIL_DEQUANTIZED_TYPES(CUVIL_DEFINE_DEQUANTIZE)

CUVIL_KERNEL void cuvil_dynamic_quant_params_u8(const float *x, float *scale, uint8_t *zero_point,
                                                int64_t elements, int64_t begin, int64_t end) {
  if (begin < end)
    dynamicQuantParams(x, elements, scale, zero_point);
}

CUVIL_KERNEL void cuvil_dynamic_quantize_rows_u8(const float *x, uint8_t *y, float *scale,
                                                 uint8_t *zero_point, int64_t row_length,
                                                 int64_t begin, int64_t end) {
  for (int64_t row = begin; row < end; ++row) {
    const float *from = x + row * row_length;
    uint8_t *to = y + row * row_length;
    dynamicQuantParams(from, row_length, scale + row, zero_point + row);
    const float inverseScale = 1.0f / scale[row];
    const int32_t rowZero = zero_point[row];
    for (int64_t k = 0; k < row_length; ++k)
      to[k] = roundToQuantized<uint8_t, 0, 255>(from[k] * inverseScale, rowZero);
  }
}
