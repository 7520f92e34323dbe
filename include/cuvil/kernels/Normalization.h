/* Row-wise normalisations (src/kernels/Normalization.cpp). */
#ifndef CUVIL_KERNELS_NORMALIZATION_H
#define CUVIL_KERNELS_NORMALIZATION_H

#include "cuvil/kernels/Common.h"

/* Softmax / LogSoftmax over `axisLen` elements spaced `inner` apart. */
CUVIL_KERNEL_DECL void cuvil_softmax_f32(const float *x, float *y, int64_t axisLen, int64_t inner,
                                         int64_t isLog, int64_t begin, int64_t end);
/* LayerNormalization of rows of `cols` elements; scale/bias strides 0 or 1. */
CUVIL_KERNEL_DECL void cuvil_layernorm_f32(const float *x, const float *scale, const float *bias,
                                           float *y, float *meanOut, float *invStdOut, int64_t cols,
                                           float epsilon, int64_t scaleStride, int64_t biasStride,
                                           int64_t begin, int64_t end);

/* LRN over the channels of x viewed as [N, C, S]:
 *   y[n, c, s] = x[n, c, s] * (bias + scale * sum of x[n, k, s]^2
 *                over k in [c - before, c + after] within [0, C))^-beta
 * (scale = alpha / size). A task is one (n, c) plane. */
struct cuvil_lrn_params {
  int64_t channels, spatial, before, after;
  float scale, beta, bias, unused;
};
CUVIL_KERNEL_DECL void cuvil_lrn_f32(const float *x, float *y, const struct cuvil_lrn_params *p,
                                     int64_t begin, int64_t end);

#endif /* CUVIL_KERNELS_NORMALIZATION_H */
