/* 2-D max and average pooling, plain NCHW or blocked NCHWc, MaxPool's
 * indices, MaxUnpool, 3-D max and average pooling in plain NCDHW, and
 * 8-bit max pooling (src/kernels/Pool.cpp). */
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
/* MaxPool with its Indices output, plain NCHW, the tasks of
 * cuvil_pool2d_f32: each window's first largest element (strictly larger
 * ones replace it, as ONNX Runtime scans) and its index into x: plane * IH
 * * IW + ih * IW + iw, or with column_major ih + iw * IH. */
CUVIL_KERNEL_DECL void cuvil_maxpool2d_indices_f32(const float *x, float *y, int64_t *indices,
                                                   const struct cuvil_pool_params *p,
                                                   int64_t column_major, int64_t begin,
                                                   int64_t end);

/* MaxUnpool: y (outputs elements) is zeroed, then y[indices[i]] = x[i] for
 * the `inputs` elements in order (the last write wins); an index outside
 * [0, outputs) raises check 1 of `error`. One task. */
CUVIL_KERNEL_DECL void cuvil_max_unpool_f32(const float *x, const int64_t *indices, float *y,
                                            int64_t *error, int64_t inputs, int64_t outputs,
                                            int64_t begin, int64_t end);

/* 3-D max (is_max) or average pooling, plain NCDHW, a task per output row
 * (plane, od, oh). indices (max only, or null) gets each window's first
 * largest element's index into x, as cuvil_maxpool2d_indices_f32 counts
 * it: plane * ID*IH*IW + (id*IH + ih)*IW + iw, or with column_major
 * id + ih*ID + iw*ID*IH (ONNX's storage_order 1). */
struct cuvil_pool3d_params {
  struct cuvil_window3d window;
  int64_t is_max;
  int64_t count_include_pad; /* average: the count includes the padding */
  int64_t column_major;
};
CUVIL_KERNEL_DECL void cuvil_pool3d_f32(const float *x, float *y, int64_t *indices,
                                        const struct cuvil_pool3d_params *p, int64_t begin,
                                        int64_t end);
/* Max pooling of 8-bit tensors (quantized models), 1-D to 3-D as the tasks
 * and indices of cuvil_pool3d_f32 with is_max (1-D and 2-D windows as depth
 * 1); an all-padding window gives the type's lowest value. */
CUVIL_KERNEL_DECL void cuvil_maxpool3d_u8(const uint8_t *x, uint8_t *y, int64_t *indices,
                                          const struct cuvil_pool3d_params *p, int64_t begin,
                                          int64_t end);
CUVIL_KERNEL_DECL void cuvil_maxpool3d_i8(const int8_t *x, int8_t *y, int64_t *indices,
                                          const struct cuvil_pool3d_params *p, int64_t begin,
                                          int64_t end);

#endif /* CUVIL_KERNELS_POOL_H */
