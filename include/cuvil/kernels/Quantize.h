/* Linear quantization (src/kernels/Quantize.cpp, whose header comment
 * gives the loop nests):
 *   quantize     y = saturate(round_half_even(x / scale) + zero_point)
 *   dequantize   y = (x - zero_point) * scale
 * and the uint8 scale and zero point DynamicQuantizeLinear derives from its
 * input's range (or each row's). */
#ifndef CUVIL_KERNELS_QUANTIZE_H
#define CUVIL_KERNELS_QUANTIZE_H

#include "cuvil/kernels/Common.h"

/* Where an element finds its scale and zero point. The data is viewed as
 * [outer, axis_dim, inner]; element (o, a, i) reads entry
 *   o * scale_outer_stride + (a / axis_block) * scale_axis_stride
 *     + (i / inner_block) * scale_inner_stride
 * of both: every stride 0 per tensor, one entry per axis index per axis,
 * one per block of an axis for blocked quantization. A task is
 * task_elements consecutive elements (the last one fewer). */
struct cuvil_quant_layout {
  int64_t elements, task_elements;
  int64_t axis_dim, inner;
  int64_t axis_block, inner_block;
  int64_t scale_outer_stride, scale_axis_stride, scale_inner_stride;
};

/* The quantized types (name, C type, smallest and largest value). */
#define CUVIL_QUANTIZED_TYPES(X)                                                                   \
  X(u8, uint8_t, 0, 255)                                                                           \
  X(i8, int8_t, -128, 127) X(u16, uint16_t, 0, 65535) X(i16, int16_t, -32768, 32767)
/* DequantizeLinear also reads i32 (a quantized bias). */
#define CUVIL_DEQUANTIZED_TYPES(X)                                                                 \
  CUVIL_QUANTIZED_TYPES(X) X(i32, int32_t, -2147483647 - 1, 2147483647)

/* zero_point may be null (0). */
#define CUVIL_DECLARE_QUANTIZE(name, Q, low, high)                                                 \
  CUVIL_KERNEL_DECL void cuvil_quantize_f32_##name(                                                \
      const float *x, const float *scale, const Q *zero_point, Q *y,                               \
      const struct cuvil_quant_layout *p, int64_t begin, int64_t end);
#define CUVIL_DECLARE_DEQUANTIZE(name, Q, low, high)                                               \
  CUVIL_KERNEL_DECL void cuvil_dequantize_##name##_f32(                                            \
      const Q *x, const float *scale, const Q *zero_point, float *y,                               \
      const struct cuvil_quant_layout *p, int64_t begin, int64_t end);
CUVIL_QUANTIZED_TYPES(CUVIL_DECLARE_QUANTIZE)
CUVIL_DEQUANTIZED_TYPES(CUVIL_DECLARE_DEQUANTIZE)

/* The uint8 quantization of x's range [min(0, min x), max(0, max x)]:
 * scale = range / 255 (1 for an empty range), zero_point =
 * round_half_even(clamp(-min / scale, 0, 255)). One task. */
CUVIL_KERNEL_DECL void cuvil_dynamic_quant_params_u8(const float *x, float *scale,
                                                     uint8_t *zero_point, int64_t elements,
                                                     int64_t begin, int64_t end);
/* The same for each row of row_length elements (a task per row: scale[r]
 * and zero_point[r]), and the row quantized with them into y, multiplied by
 * the inverse of the scale:
 *   y = saturate(round_half_even(x * (1 / scale[r])) + zero_point[r]) */
CUVIL_KERNEL_DECL void cuvil_dynamic_quantize_rows_u8(const float *x, uint8_t *y, float *scale,
                                                      uint8_t *zero_point, int64_t row_length,
                                                      int64_t begin, int64_t end);

#endif /* CUVIL_KERNELS_QUANTIZE_H */
