/* Kernels that move or convert elements (src/kernels/DataMovement.cpp,
 * LayoutNCHWc.cpp): strided copies, Gather, Cast, fills, Pad and the
 * reorders at the edges of NCHWc regions. */
#ifndef CUVIL_KERNELS_DATAMOVEMENT_H
#define CUVIL_KERNELS_DATAMOVEMENT_H

#include "cuvil/kernels/Common.h"

/* dst[i] = src[i] over a rank-6 space with per-operand element strides. */
struct cuvil_copy_params {
  int64_t shape[CUVIL_MAX_RANK], src_strides[CUVIL_MAX_RANK], dst_strides[CUVIL_MAX_RANK];
};
#define CUVIL_DECLARE_COPY(size, T)                                                                \
  CUVIL_KERNEL_DECL void cuvil_copy_##size(                                                        \
      const T *src, T *dst, const struct cuvil_copy_params *p, int64_t begin, int64_t end);
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_COPY)

/* out[o, j, :] = data[o, indices[j], :], by element size and index type;
 * an index outside [-axisDim, axisDim) raises `error` (KernelArg::error). */
#define CUVIL_GATHER_INDEX_TYPES(X, size, T) X(size, T, i32, int32_t) X(size, T, i64, int64_t)
#define CUVIL_DECLARE_GATHER(size, T, index, I)                                                    \
  CUVIL_KERNEL_DECL void cuvil_gather_##size##_##index(                                            \
      const T *data, const I *indices, T *out, int64_t *error, int64_t axisDim, int64_t inner,     \
      int64_t numIndices, int64_t begin, int64_t end);
#define CUVIL_DECLARE_GATHERS(size, T) CUVIL_GATHER_INDEX_TYPES(CUVIL_DECLARE_GATHER, size, T)
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_GATHERS)

/* Casts between element types (name, C type); a cast to bool (stored as u8
 * 0/1, the last entry's 1) compares with zero, one from bool reads it as
 * u8. */
#define CUVIL_CAST_SOURCE_TYPES(X)                                                                 \
  X(f32, float) X(f64, double) X(i8, int8_t) X(u8, uint8_t) X(i32, int32_t) X(i64, int64_t)
#define CUVIL_CAST_TARGET_TYPES(X, from, From)                                                     \
  X(from, From, f32, float, 0)                                                                     \
  X(from, From, f64, double, 0)                                                                    \
  X(from, From, i8, int8_t, 0)                                                                     \
  X(from, From, u8, uint8_t, 0)                                                                    \
  X(from, From, i32, int32_t, 0) X(from, From, i64, int64_t, 0) X(from, From, bool, uint8_t, 1)
#define CUVIL_DECLARE_CAST(from, From, to, To, toBool)                                             \
  CUVIL_KERNEL_DECL void cuvil_cast_##from##_##to(const From *src, To *dst, int64_t begin,         \
                                                  int64_t end);
#define CUVIL_DECLARE_CASTS_FROM(from, From) CUVIL_CAST_TARGET_TYPES(CUVIL_DECLARE_CAST, from, From)
CUVIL_CAST_SOURCE_TYPES(CUVIL_DECLARE_CASTS_FROM)

/* dst[i] = the low bytes of `bits`. */
#define CUVIL_DECLARE_FILL(size, T)                                                                \
  CUVIL_KERNEL_DECL void cuvil_fill_##size(T *dst, int64_t bits, int64_t begin, int64_t end);
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_FILL)

/* Pad over a rank-6 space; mode 0 constant (fill_bits), 1 reflect, 2 edge,
 * 3 wrap. */
struct cuvil_pad_params {
  int64_t out_shape[CUVIL_MAX_RANK], in_shape[CUVIL_MAX_RANK], pads_begin[CUVIL_MAX_RANK];
  int64_t mode, fill_bits;
};
#define CUVIL_DECLARE_PAD(size, T)                                                                 \
  CUVIL_KERNEL_DECL void cuvil_pad_##size(const T *src, T *dst, const struct cuvil_pad_params *p,  \
                                          int64_t begin, int64_t end);
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_PAD)

/* Plain [N, C, HW] <-> blocked [N, CB, HW, B]. */
CUVIL_DECLARE_BLOCKED_KERNELS(reorder, (const float *x, float *y, int64_t C, int64_t HW,
                                        int64_t toBlocked, int64_t begin, int64_t end))

#endif /* CUVIL_KERNELS_DATAMOVEMENT_H */
