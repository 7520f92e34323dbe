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

/* GatherElements: out[i] = data[i with i[axis] replaced by indices[i]],
 * over the shapes right-aligned in rank 6 (leading dims of size 1); a task
 * is one row of the last dim. Raises `error` check 1 for an index outside
 * [-axis_dim, axis_dim), check 2 for an indices dim off the axis larger
 * than data's. */
struct cuvil_gather_elements_params {
  int64_t shape[CUVIL_MAX_RANK];        /* of indices and out */
  int64_t data_shape[CUVIL_MAX_RANK];   /* of data */
  int64_t data_strides[CUVIL_MAX_RANK]; /* in elements */
  int64_t axis, axis_dim;
};
#define CUVIL_DECLARE_GATHER_ELEMENTS(size, T, index, I)                                           \
  CUVIL_KERNEL_DECL void cuvil_gather_elements_##size##_##index(                                   \
      const T *data, const I *indices, T *out, int64_t *error,                                     \
      const struct cuvil_gather_elements_params *p, int64_t begin, int64_t end);
#define CUVIL_DECLARE_GATHER_ELEMENTS_ALL(size, T)                                                 \
  CUVIL_GATHER_INDEX_TYPES(CUVIL_DECLARE_GATHER_ELEMENTS, size, T)
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_GATHER_ELEMENTS_ALL)

/* ReverseSequence: x and y viewed as [batch, time, inner] with element
 * strides per batch and time step (either axis order); for each (b, t):
 *   y[b, t, :] = x[b, t < lens[b] ? lens[b] - 1 - t : t, :]
 * A length outside [0, time] raises check 1 of `error`. A task is one
 * (b, t). By element size. */
struct cuvil_reverse_sequence_params {
  int64_t time, inner, batch_stride, time_stride;
};
#define CUVIL_DECLARE_REVERSE_SEQUENCE(size, T)                                                    \
  CUVIL_KERNEL_DECL void cuvil_reverse_sequence_##size(                                            \
      const T *x, const int64_t *lens, T *y, int64_t *error,                                       \
      const struct cuvil_reverse_sequence_params *p, int64_t begin, int64_t end);
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_REVERSE_SEQUENCE)

/* Trilu: the upper (j - i >= k) or lower (j - i <= k) triangle of every
 * rows x cols matrix of x, zeros elsewhere; k is read from `k` (null: 0).
 * A task is one row of one matrix. By element size. */
struct cuvil_trilu_params {
  int64_t rows, cols;
  int64_t upper; /* 1: keep the upper triangle */
  int64_t unused;
};
#define CUVIL_DECLARE_TRILU(size, T)                                                               \
  CUVIL_KERNEL_DECL void cuvil_trilu_##size(const T *x, const int64_t *k, T *y,                    \
                                            const struct cuvil_trilu_params *p, int64_t begin,     \
                                            int64_t end);
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_TRILU)

/* EyeLike: y[r, j] = one_bits' low bytes where j - r = k, else 0; a task is
 * one row. By element size. */
struct cuvil_eye_params {
  int64_t cols, k, one_bits, unused;
};
#define CUVIL_DECLARE_EYE(size, T)                                                                 \
  CUVIL_KERNEL_DECL void cuvil_eye_##size(T *y, const struct cuvil_eye_params *p, int64_t begin,   \
                                          int64_t end);
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_EYE)

/* Casts between element types: (name, C type it is stored as, codec), codec
 * 0 for the C type's own value, 1 for IEEE half and 2 for bfloat16 (both
 * stored as their bits), 3 for bool (stored as u8 0/1: a cast to bool
 * compares with zero, one from bool reads the u8 kernels). */
#define CUVIL_CAST_SOURCE_TYPES(X)                                                                 \
  X(f32, float, 0)                                                                                 \
  X(f64, double, 0)                                                                                \
  X(f16, uint16_t, 1)                                                                              \
  X(bf16, uint16_t, 2)                                                                             \
  X(i8, int8_t, 0)                                                                                 \
  X(u8, uint8_t, 0)                                                                                \
  X(i16, int16_t, 0) X(u16, uint16_t, 0) X(i32, int32_t, 0) X(u32, uint32_t, 0) X(i64, int64_t, 0) \
      X(u64, uint64_t, 0)
#define CUVIL_CAST_TARGET_TYPES(X, from, From, fromCodec)                                          \
  X(from, From, fromCodec, f32, float, 0)                                                          \
  X(from, From, fromCodec, f64, double, 0)                                                         \
  X(from, From, fromCodec, f16, uint16_t, 1)                                                       \
  X(from, From, fromCodec, bf16, uint16_t, 2)                                                      \
  X(from, From, fromCodec, i8, int8_t, 0)                                                          \
  X(from, From, fromCodec, u8, uint8_t, 0)                                                         \
  X(from, From, fromCodec, i16, int16_t, 0)                                                        \
  X(from, From, fromCodec, u16, uint16_t, 0)                                                       \
  X(from, From, fromCodec, i32, int32_t, 0)                                                        \
  X(from, From, fromCodec, u32, uint32_t, 0)                                                       \
  X(from, From, fromCodec, i64, int64_t, 0)                                                        \
  X(from, From, fromCodec, u64, uint64_t, 0)                                                       \
  X(from, From, fromCodec, bool, uint8_t, 3)
#define CUVIL_DECLARE_CAST(from, From, fromCodec, to, To, toCodec)                                 \
  CUVIL_KERNEL_DECL void cuvil_cast_##from##_##to(const From *src, To *dst, int64_t begin,         \
                                                  int64_t end);
#define CUVIL_DECLARE_CASTS_FROM(from, From, fromCodec)                                            \
  CUVIL_CAST_TARGET_TYPES(CUVIL_DECLARE_CAST, from, From, fromCodec)
CUVIL_CAST_SOURCE_TYPES(CUVIL_DECLARE_CASTS_FROM)

/* dst[i] = the low bytes of `bits`. */
#define CUVIL_DECLARE_FILL(size, T)                                                                \
  CUVIL_KERNEL_DECL void cuvil_fill_##size(T *dst, int64_t bits, int64_t begin, int64_t end);
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_FILL)

/* Range: y[i] = *start + i * *delta, a task per element (start and delta
 * scalars in memory: constants, inputs or shape computations). By element
 * type (name, C type). */
#define CUVIL_RANGE_TYPES(X)                                                                       \
  X(f32, float) X(f64, double) X(i16, int16_t) X(i32, int32_t) X(i64, int64_t)
#define CUVIL_DECLARE_RANGE(name, T)                                                               \
  CUVIL_KERNEL_DECL void cuvil_range_##name(const T *start, const T *delta, T *y, int64_t begin,   \
                                            int64_t end);
CUVIL_RANGE_TYPES(CUVIL_DECLARE_RANGE)

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
