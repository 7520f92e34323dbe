// The rounding and saturation of a quantized value, shared by the
// quantize kernels and the integer GEMM's requantizing epilogue. As ONNX
// Runtime computes it: v clamped to [low - zp, high - zp] (NaN to the low
// end), rounded half to even, plus zp; the bounds are integers, so this is
// saturate(round(v) + zp).
#pragma once

#include "KernelSupport.h"

namespace cuvil::kernels {

// saturate(round(v) + zp) - zp, as a float (small integers: exact). An
// epilogue that dequantizes the value again multiplies this by the scale
// without converting to 8 bits and back.
template <int64_t Low, int64_t High>
CUVIL_INLINE float roundToCentered(float v, int32_t zeroPoint) {
  float low = float(Low - zeroPoint), high = float(High - zeroPoint);
  v = v > low ? v : low;
  v = v < high ? v : high;
  return __builtin_elementwise_roundeven(v);
}

template <typename Q, int64_t Low, int64_t High>
CUVIL_INLINE Q roundToQuantized(float v, int32_t zeroPoint) {
  return Q(int32_t(roundToCentered<Low, High>(v, zeroPoint)) + zeroPoint);
}

// The 8-bit types the integer GEMM writes.
template <typename Q> struct QuantizedRange;
template <> struct QuantizedRange<uint8_t> {
  static constexpr int64_t low = 0, high = 255;
};
template <> struct QuantizedRange<int8_t> {
  static constexpr int64_t low = -128, high = 127;
};

} // namespace cuvil::kernels
