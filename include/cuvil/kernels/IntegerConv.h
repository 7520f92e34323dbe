/* The integer 2-D convolution (src/kernels/IntegerConv.cpp, whose header
 * comment gives the loop nest): NCHW data and weights less their zero
 * points, multiplied with 32-bit accumulation as the integer GEMM of the
 * weights by the image's patches (IntegerGemm.h), stored as i32
 * (ConvInteger) or with a bias added and requantized (QLinearConv):
 *   acc[n, m, p] = sum over c, kh, kw of (w[m, c, kh, kw] - w_zero)
 *                  * (x[n, g Cg + c, ih, iw] - x_zero)   (0 in the padding)
 *   y = acc                                                         (iconv)
 *   y = saturate(round_half_even(float(acc + bias[m]) * x_scale * w_scale / y_scale)
 *                + y_zero)                                          (qconv)
 *   y = activation(float(qconv - y_zero) * y_scale + residual)     (qconv_dq)
 * The weights' zero point and scale are per tensor or per output channel,
 * the image's and the output's scalars. */
#ifndef CUVIL_KERNELS_INTEGER_CONV_H
#define CUVIL_KERNELS_INTEGER_CONV_H

#include "cuvil/kernels/IntegerGemm.h"

struct cuvil_iconv_params {
  int64_t C, M, groups; /* input and output channels */
  struct cuvil_window2d window;
  int64_t w_zero_stride, w_scale_stride; /* 0: per tensor, 1: per output channel */
  /* CUVIL_PRODUCTS_BYTES, _BYTES_PAIRED or _DOT: a u8 image and i8
   * weights with zero point 0 (within [-64, 64] for BYTES, [-32, 32] for
   * BYTES_PAIRED), checked at compile time. */
  int64_t products;
  struct cuvil_igemm_blocking blocking;
};

/* ConvInteger, by image and weight type: zero points may be null (0).
 * Tasks: images x groups x output-channel blocks x panels of 64 pixels. */
#define CUVIL_DECLARE_ICONV(xn, X, wn, W)                                                          \
  CUVIL_KERNEL_DECL void cuvil_iconv_##xn##_##wn(                                                  \
      const X *x, const W *w, const X *x_zero, const W *w_zero, int32_t *y,                        \
      const struct cuvil_iconv_params *p, int64_t begin, int64_t end);
CUVIL_IGEMM_TYPES(CUVIL_DECLARE_ICONV)

/* QLinearConv, by image, weight and output type; bias may be null. */
#define CUVIL_DECLARE_QCONV(xn, X, wn, W, yn, Y)                                                   \
  CUVIL_KERNEL_DECL void cuvil_qconv_##xn##_##wn##_##yn(                                           \
      const X *x, const float *x_scale, const X *x_zero, const W *w, const float *w_scale,         \
      const W *w_zero, const float *y_scale, const Y *y_zero, const int32_t *bias, Y *y,           \
      const struct cuvil_iconv_params *p, int64_t begin, int64_t end);
CUVIL_QGEMM_TYPES(CUVIL_DECLARE_QCONV)

/* QLinearConv then DequantizeLinear (exactly: the requantized value is
 * dequantized), plus an optional residual shaped like y and an activation:
 * cuvil.FusedQLinearConv. By image, weight and requantized type. */
struct cuvil_qconv_dq_params {
  struct cuvil_iconv_params conv;
  struct cuvil_unary activation;
};
#define CUVIL_DECLARE_QCONV_DQ(xn, X, wn, W, yn, Y)                                                \
  CUVIL_KERNEL_DECL void cuvil_qconv_dq_##xn##_##wn##_##yn(                                        \
      const X *x, const float *x_scale, const X *x_zero, const W *w, const float *w_scale,         \
      const W *w_zero, const float *y_scale, const Y *y_zero, const int32_t *bias,                 \
      const float *residual, float *y, const struct cuvil_qconv_dq_params *p, int64_t begin,       \
      int64_t end);
CUVIL_QGEMM_TYPES(CUVIL_DECLARE_QCONV_DQ)

/* The same with its epilogue in the quantized domain: the residual
 * (optional) 8-bit of the requantized type, dequantized by r_scale and
 * r_zero, and the result quantized by z_scale and z_zero (multiplied by
 * its inverse, where QuantizeLinear divides; rounded half to even,
 * saturated):
 *   y = saturate(round_half_even(activation(float(qconv - y_zero) * y_scale
 *                + float(residual - r_zero) * r_scale) * (1 / z_scale)) + z_zero) */
#define CUVIL_DECLARE_QCONV_Q(xn, X, wn, W, yn, Y)                                                 \
  CUVIL_KERNEL_DECL void cuvil_qconv_q_##xn##_##wn##_##yn(                                         \
      const X *x, const float *x_scale, const X *x_zero, const W *w, const float *w_scale,         \
      const W *w_zero, const float *y_scale, const Y *y_zero, const int32_t *bias,                 \
      const Y *residual, const float *r_scale, const Y *r_zero, const float *z_scale,              \
      const Y *z_zero, Y *y, const struct cuvil_qconv_dq_params *p, int64_t begin, int64_t end);
CUVIL_QGEMM_TYPES(CUVIL_DECLARE_QCONV_Q)

#endif /* CUVIL_KERNELS_INTEGER_CONV_H */
