/* Elementwise kernels (src/kernels/Elementwise.cpp): unary maps over
 * contiguous data, broadcasting binary ops, Where and fused chains over
 * rank-6 strided iteration spaces (0 strides where an operand broadcasts). */
#ifndef CUVIL_KERNELS_ELEMENTWISE_H
#define CUVIL_KERNELS_ELEMENTWISE_H

#include "cuvil/kernels/Common.h"
#include "cuvil/runtime/ModelABI.h"

/* y[i] = f(x[i]); tasks are elements. */
CUVIL_KERNEL_DECL void cuvil_unary_f32(const float *x, float *y, const struct cuvil_unary *f,
                                       int64_t begin, int64_t end);
/* The same on f64 data, computed in f32 (the functions are f32's). */
CUVIL_KERNEL_DECL void cuvil_unary_f64(const double *x, double *y, const struct cuvil_unary *f,
                                       int64_t begin, int64_t end);

struct cuvil_binary_params {
  int64_t op; /* cuvil_binary_op */
  int64_t shape[CUVIL_MAX_RANK], a_strides[CUVIL_MAX_RANK], b_strides[CUVIL_MAX_RANK];
};
/* Arithmetic ops by element type (name, C type); comparisons and logical
 * ops write bool (u8), by operand type. */
#define CUVIL_BINARY_TYPES(X)                                                                      \
  X(f32, float)                                                                                    \
  X(f64, double)                                                                                   \
  X(i64, int64_t)                                                                                  \
  X(i32, int32_t)                                                                                  \
  X(i16, int16_t) X(i8, int8_t) X(u64, uint64_t) X(u32, uint32_t) X(u16, uint16_t) X(u8, uint8_t)
#define CUVIL_COMPARE_TYPES(X)                                                                     \
  X(f32, float)                                                                                    \
  X(f64, double)                                                                                   \
  X(i64, int64_t)                                                                                  \
  X(i32, int32_t)                                                                                  \
  X(i16, int16_t) X(i8, int8_t) X(u64, uint64_t) X(u32, uint32_t) X(u16, uint16_t) X(u8, uint8_t)
#define CUVIL_DECLARE_BINARY(name, T)                                                              \
  CUVIL_KERNEL_DECL void cuvil_binary_##name(const T *a, const T *b, T *y,                         \
                                             const struct cuvil_binary_params *p, int64_t begin,   \
                                             int64_t end);
#define CUVIL_DECLARE_COMPARE(name, T)                                                             \
  CUVIL_KERNEL_DECL void cuvil_compare_##name(const T *a, const T *b, uint8_t *y,                  \
                                              const struct cuvil_binary_params *p, int64_t begin,  \
                                              int64_t end);
CUVIL_BINARY_TYPES(CUVIL_DECLARE_BINARY)
CUVIL_COMPARE_TYPES(CUVIL_DECLARE_COMPARE)
/* Equal of strings (p->op is CUVIL_BINARY_EQUAL): their bytes compared. */
CUVIL_DECLARE_COMPARE(string, struct cuvil_string)

/* y = cond ? a : b, by element size (bytes, C type). */
struct cuvil_where_params {
  int64_t shape[CUVIL_MAX_RANK], cond_strides[CUVIL_MAX_RANK], a_strides[CUVIL_MAX_RANK],
      b_strides[CUVIL_MAX_RANK];
};
#define CUVIL_DECLARE_WHERE(size, T)                                                               \
  CUVIL_KERNEL_DECL void cuvil_where_##size(const uint8_t *cond, const T *a, const T *b, T *y,     \
                                            const struct cuvil_where_params *p, int64_t begin,     \
                                            int64_t end);
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_WHERE)

/* A fused chain: v = x; for each step: v = f(v) | v op w_k | w_k op v;
 * y = v. x and y have the iteration space's shape; operand k broadcasts
 * with operand_strides[k]. */
#define CUVIL_CHAIN_MAX_STEPS 32
#define CUVIL_CHAIN_MAX_OPERANDS 4
enum cuvil_chain_step_kind {
  CUVIL_CHAIN_UNARY = 0,        /* v = f(v): op is a cuvil_unary_op with alpha, beta */
  CUVIL_CHAIN_VALUE_FIRST = 1,  /* v = v op w: op is a cuvil_binary_op */
  CUVIL_CHAIN_OPERAND_FIRST = 2 /* v = w op v */
};
struct cuvil_chain_step {
  int64_t kind, op, operand;
  float alpha, beta;
};
struct cuvil_chain_params {
  int64_t steps;
  int64_t shape[CUVIL_MAX_RANK];
  int64_t operand_strides[CUVIL_CHAIN_MAX_OPERANDS][CUVIL_MAX_RANK];
  struct cuvil_chain_step step[CUVIL_CHAIN_MAX_STEPS];
};
CUVIL_KERNEL_DECL void cuvil_elementwise_chain_f32(const float *x, const float *w0, const float *w1,
                                                   const float *w2, const float *w3, float *y,
                                                   const struct cuvil_chain_params *p,
                                                   int64_t begin, int64_t end);

#endif /* CUVIL_KERNELS_ELEMENTWISE_H */
