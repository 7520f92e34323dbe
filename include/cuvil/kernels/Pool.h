/* 2-D max and average pooling, plain NCHW or blocked NCHWc
 * (src/kernels/Pool.cpp). */
#ifndef CUVIL_KERNELS_POOL_H
#define CUVIL_KERNELS_POOL_H

#include "cuvil/kernels/Common.h"

struct cuvil_pool_params {
  struct cuvil_window2d window;
  int64_t is_max;
  int64_t count_include_pad; /* average: the count includes the padding */
};
CUVIL_KERNEL_DECL void cuvil_pool2d_f32(const float *x, float *y, const struct cuvil_pool_params *p,
                                        int64_t begin, int64_t end);
CUVIL_DECLARE_BLOCKED_KERNELS(pool, (const float *x, float *y, const struct cuvil_pool_params *p,
                                     int64_t begin, int64_t end))

#endif /* CUVIL_KERNELS_POOL_H */
