/* Einsum's general contraction and Det (src/kernels/LinearAlgebra.cpp). */
#ifndef CUVIL_KERNELS_LINEARALGEBRA_H
#define CUVIL_KERNELS_LINEARALGEBRA_H

#include "cuvil/kernels/Common.h"

/* Einsum of one or two operands as nested loops, one per label: the first
 * out_loops index the output (row-major, contiguous), the others are
 * summed. An operand steps by its stride per loop: the sum of its axes'
 * strides for that label (a diagonal), 0 where it lacks the label or
 * broadcasts it. A task is one output row (all output loops but the last):
 *   row[:] = 0
 *   for each summed index s: for j: row[j] += a[at(r, s, j)] * b[at(r, s, j)]
 * b is null for one operand. Integers wrap around. By element type. */
#define CUVIL_EINSUM_MAX_LOOPS 12
struct cuvil_einsum_params {
  int64_t out_loops, loops;
  int64_t extents[CUVIL_EINSUM_MAX_LOOPS];
  int64_t a_strides[CUVIL_EINSUM_MAX_LOOPS], b_strides[CUVIL_EINSUM_MAX_LOOPS];
};
#define CUVIL_EINSUM_TYPES(X) X(f32, float) X(f64, double) X(i32, int32_t) X(i64, int64_t)
#define CUVIL_DECLARE_EINSUM(name, T)                                                              \
  CUVIL_KERNEL_DECL void cuvil_einsum_##name(const T *a, const T *b, T *y,                         \
                                             const struct cuvil_einsum_params *p, int64_t begin,   \
                                             int64_t end);
CUVIL_EINSUM_TYPES(CUVIL_DECLARE_EINSUM)

/* Det of each n x n matrix of x (contiguous, one after another): LU with
 * partial pivoting in f64, in a copy on the kernel's stack (n at most
 * CUVIL_DET_MAX_ORDER); a singular matrix gives 0. A task is one matrix. */
#define CUVIL_DET_MAX_ORDER 64
CUVIL_KERNEL_DECL void cuvil_det_f32(const float *x, float *y, int64_t n, int64_t begin,
                                     int64_t end);

#endif /* CUVIL_KERNELS_LINEARALGEBRA_H */
