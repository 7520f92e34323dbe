/* Reductions over any set of axes (src/kernels/Reduce.cpp). */
#ifndef CUVIL_KERNELS_REDUCE_H
#define CUVIL_KERNELS_REDUCE_H

#include "cuvil/kernels/Common.h"

enum cuvil_reduce_op {
  CUVIL_REDUCE_SUM = 0,
  CUVIL_REDUCE_MEAN = 1,
  CUVIL_REDUCE_MAX = 2,
  CUVIL_REDUCE_MIN = 3,
  CUVIL_REDUCE_PROD = 4,
  CUVIL_REDUCE_SUM_SQUARE = 5,
  CUVIL_REDUCE_L1 = 6,
  CUVIL_REDUCE_L2 = 7
};

/* x's dims split into kept ones (the output's index space) and reduced
 * ones, each padded to rank 6, with element strides. */
struct cuvil_reduce_params {
  int64_t op; /* cuvil_reduce_op */
  int64_t kept_shape[CUVIL_MAX_RANK], kept_strides[CUVIL_MAX_RANK];
  int64_t reduced_shape[CUVIL_MAX_RANK], reduced_strides[CUVIL_MAX_RANK];
  int64_t count;        /* reduced elements per output */
  int64_t inner_vector; /* 1: the innermost kept dim is contiguous and a multiple of 16 */
};
CUVIL_KERNEL_DECL void cuvil_reduce_f32(const float *x, float *y,
                                        const struct cuvil_reduce_params *p, int64_t begin,
                                        int64_t end);
/* The same in f64, one output per task (inner_vector must be 0). */
CUVIL_KERNEL_DECL void cuvil_reduce_f64(const double *x, double *y,
                                        const struct cuvil_reduce_params *p, int64_t begin,
                                        int64_t end);
/* The same on integers, one output per task (inner_vector 0): Max, Min,
 * Sum and Prod only, Sum and Prod wrapping on overflow. By element type
 * (name, C type). */
#define CUVIL_REDUCE_INTEGER_TYPES(X) X(i32, int32_t) X(i64, int64_t)
#define CUVIL_DECLARE_INTEGER_REDUCE(name, T)                                                      \
  CUVIL_KERNEL_DECL void cuvil_reduce_##name(                                                      \
      const T *x, T *y, const struct cuvil_reduce_params *p, int64_t begin, int64_t end);
CUVIL_REDUCE_INTEGER_TYPES(CUVIL_DECLARE_INTEGER_REDUCE)

/* ArgMax / ArgMin along one axis of x viewed as [outer, axis_dim, inner]:
 * y[o, i] = the k of the largest (smallest) x[o, k, i], the first such k
 * or with select_last the last; a task is one output element. By element
 * type (name, C type). */
struct cuvil_arg_reduce_params {
  int64_t axis_dim, inner;
  int64_t minimum;     /* 1: ArgMin */
  int64_t select_last; /* 1: the last index of ties */
};
#define CUVIL_ARG_REDUCE_TYPES(X)                                                                  \
  X(f32, float) X(f64, double) X(i8, int8_t) X(u8, uint8_t) X(i32, int32_t) X(i64, int64_t)
#define CUVIL_DECLARE_ARG_REDUCE(name, T)                                                          \
  CUVIL_KERNEL_DECL void cuvil_arg_reduce_##name(const T *x, int64_t *y,                           \
                                                 const struct cuvil_arg_reduce_params *p,          \
                                                 int64_t begin, int64_t end);
CUVIL_ARG_REDUCE_TYPES(CUVIL_DECLARE_ARG_REDUCE)

/* TopK (src/kernels/TopK.cpp) along one axis of x viewed as [outer,
 * axis_dim, inner]: values and indices are [outer, k, inner], the k largest
 * (smallest) elements of each line best first, ties by the smaller index
 * (-0 ties with 0); NaN ranks above every number (largest) or below
 * (smallest). A task is one line (o, i). k beyond axis_dim raises check 1 of
 * `error` (k known only at run time). By element type (name, C type). */
struct cuvil_topk_params {
  int64_t axis_dim, inner, k;
  int64_t largest; /* 0: the smallest */
};
#define CUVIL_TOPK_TYPES(X)                                                                        \
  X(f32, float)                                                                                    \
  X(f64, double) X(i8, int8_t) X(u8, uint8_t) X(i32, int32_t) X(i64, int64_t) X(u64, uint64_t)
#define CUVIL_DECLARE_TOPK(name, T)                                                                \
  CUVIL_KERNEL_DECL void cuvil_topk_##name(const T *x, T *values, int64_t *indices,                \
                                           int64_t *error, const struct cuvil_topk_params *p,      \
                                           int64_t begin, int64_t end);
CUVIL_TOPK_TYPES(CUVIL_DECLARE_TOPK)

/* CumSum along one axis of x viewed as [outer, axis_dim, inner]:
 * y[o, a, i] = the sum of x[o, b, i] over b <= a (b < a when exclusive;
 * b >= a, b > a when reverse), accumulated in the element type in order
 * from the scan's start. A task is one o. By element type (name, C type). */
struct cuvil_cumsum_params {
  int64_t axis_dim, inner;
  int64_t exclusive, reverse;
};
#define CUVIL_CUMSUM_TYPES(X)                                                                      \
  X(f32, float) X(f64, double) X(i32, int32_t) X(i64, int64_t) X(u32, uint32_t) X(u64, uint64_t)
#define CUVIL_DECLARE_CUMSUM(name, T)                                                              \
  CUVIL_KERNEL_DECL void cuvil_cumsum_##name(                                                      \
      const T *x, T *y, const struct cuvil_cumsum_params *p, int64_t begin, int64_t end);
CUVIL_CUMSUM_TYPES(CUVIL_DECLARE_CUMSUM)

/* Hardmax along one axis of x viewed as [outer, axis_dim, inner]:
 * y[o, a, i] = 1 where a is the first index of the line's largest element
 * (as ArgMax), 0 elsewhere. A task is one line (o, i). By element type. */
struct cuvil_hardmax_params {
  int64_t axis_dim, inner;
};
#define CUVIL_HARDMAX_TYPES(X) X(f32, float) X(f64, double)
#define CUVIL_DECLARE_HARDMAX(name, T)                                                             \
  CUVIL_KERNEL_DECL void cuvil_hardmax_##name(                                                     \
      const T *x, T *y, const struct cuvil_hardmax_params *p, int64_t begin, int64_t end);
CUVIL_HARDMAX_TYPES(CUVIL_DECLARE_HARDMAX)

#endif /* CUVIL_KERNELS_REDUCE_H */
