/* Kernels whose output extent comes from the data (src/kernels/Select.cpp).
 * Each writes its extent to a symbol's slot (an int64_t of the run), which
 * the code after it reads; the extent never exceeds the bound the compiler
 * planned the output for (the input's element count). */
#ifndef CUVIL_KERNELS_SELECT_H
#define CUVIL_KERNELS_SELECT_H

#include "cuvil/kernels/Common.h"

/* NonZero: y is i64[rank, count], the coordinates of x's nonzero elements
 * in row-major order; *count receives their number. One task. */
struct cuvil_nonzero_params {
  int64_t rank, elements;
  int64_t shape[CUVIL_MAX_RANK];
};
/* By how elements compare with zero (name, C type, sign mask): floats by
 * value (-0 is zero, NaN is not), 16-bit floats (f16, bf16) by their bits
 * without the sign, integers and bool by their bits. */
#define CUVIL_NONZERO_TYPES(X)                                                                     \
  X(f32, float, 0)                                                                                 \
  X(f64, double, 0)                                                                                \
  X(f16, uint16_t, 0x7fff)                                                                         \
  X(b8, uint8_t, 0xff)                                                                             \
  X(b16, uint16_t, 0xffff) X(b32, uint32_t, 0xffffffffu) X(b64, uint64_t, ~0ull)
#define CUVIL_DECLARE_NONZERO(name, T, mask)                                                       \
  CUVIL_KERNEL_DECL void cuvil_nonzero_##name(const T *x, int64_t *y, int64_t *count,              \
                                              const struct cuvil_nonzero_params *p, int64_t begin, \
                                              int64_t end);
CUVIL_NONZERO_TYPES(CUVIL_DECLARE_NONZERO)

/* Compress along an axis: x is [outer, axis_len, inner]; the slices a with
 * a < min(cond_len, axis_len) and cond[a] go to y, [outer, count, inner],
 * in order; *count receives their number. One task. By element size. */
struct cuvil_compress_params {
  int64_t outer, axis_len, inner, cond_len;
};
#define CUVIL_DECLARE_COMPRESS(size, T)                                                            \
  CUVIL_KERNEL_DECL void cuvil_compress_##size(                                                    \
      const T *x, const uint8_t *cond, T *y, int64_t *count,                                       \
      const struct cuvil_compress_params *p, int64_t begin, int64_t end);
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_COMPRESS)

#endif /* CUVIL_KERNELS_SELECT_H */
