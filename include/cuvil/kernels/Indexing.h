/* Kernels that write or read through index tensors (src/kernels/Indexing.cpp):
 * ScatterElements, ScatterND, GatherND, OneHot and TensorScatter. An index outside
 * [-n, n) of the dim it indexes raises `error` (KernelArg::error) with the
 * check numbered below, and the kernel stops without touching memory
 * outside its buffers. The scatters update `out`, which the lowering fills
 * with a copy of data before the call. */
#ifndef CUVIL_KERNELS_INDEXING_H
#define CUVIL_KERNELS_INDEXING_H

#include "cuvil/kernels/Common.h"

/* How a scatter combines an update u with the element e it lands on. */
enum cuvil_scatter_reduction {
  CUVIL_SCATTER_NONE = 0, /* e = u */
  CUVIL_SCATTER_ADD = 1,  /* e + u (bool: or; integers wrap) */
  CUVIL_SCATTER_MUL = 2,  /* e * u (bool: and) */
  CUVIL_SCATTER_MAX = 3,  /* e > u ? e : u (bool: or) */
  CUVIL_SCATTER_MIN = 4   /* e < u ? e : u (bool: and) */
};

/* Element types the scatters take: (name, C type stored as, codec), codecs
 * as the casts' (DataMovement.h): 0 the C type's own value, 1 IEEE half and
 * 2 bfloat16 (their bits; reductions compute in float), 3 bool (u8 0/1). */
#define CUVIL_SCATTER_TYPES(X)                                                                     \
  X(f32, float, 0)                                                                                 \
  X(f64, double, 0)                                                                                \
  X(f16, uint16_t, 1)                                                                              \
  X(bf16, uint16_t, 2)                                                                             \
  X(i8, int8_t, 0)                                                                                 \
  X(u8, uint8_t, 0)                                                                                \
  X(i16, int16_t, 0)                                                                               \
  X(u16, uint16_t, 0)                                                                              \
  X(i32, int32_t, 0) X(u32, uint32_t, 0) X(i64, int64_t, 0) X(u64, uint64_t, 0) X(bool, uint8_t, 3)

/* ScatterElements over indices' shape right-aligned in rank 6 (leading
 * dims of 1): for every position i of indices and updates,
 *   out[i with i[axis] replaced by indices[i]] (reduction)= updates[i].
 * A task is one fiber: the positions that share every coordinate but the
 * axis, which no other fiber's updates reach; along it the updates apply
 * in index order, so the last of duplicate indices wins. Consecutive
 * fibers of a task run side by side along the last dim off the axis:
 *   for each run of fibers f0..f1 differing in that dim l only:
 *     for j in [0, shape[axis]): for l in run:
 *       k = indices[f_l, j] (checked); out[f_l with axis k] op= updates[f_l, j]
 * Check 1: an index outside [-axis_dim, axis_dim); check 2: an indices dim
 * off the axis larger than data's. By element type and index type. */
struct cuvil_scatter_elements_params {
  int64_t shape[CUVIL_MAX_RANK];        /* of indices and updates */
  int64_t data_shape[CUVIL_MAX_RANK];   /* of data and out */
  int64_t data_strides[CUVIL_MAX_RANK]; /* in elements */
  int64_t axis, axis_dim;
  int64_t reduction; /* cuvil_scatter_reduction */
  int64_t unused;
};
#define CUVIL_SCATTER_INDEX_TYPES(X, name, T, codec)                                               \
  X(name, T, codec, i32, int32_t) X(name, T, codec, i64, int64_t)
#define CUVIL_DECLARE_SCATTER_ELEMENTS(name, T, codec, index, I)                                   \
  CUVIL_KERNEL_DECL void cuvil_scatter_elements_##name##_##index(                                  \
      T *out, const I *indices, const T *updates, int64_t *error,                                  \
      const struct cuvil_scatter_elements_params *p, int64_t begin, int64_t end);
#define CUVIL_DECLARE_SCATTER_ELEMENTS_ALL(name, T, codec)                                         \
  CUVIL_SCATTER_INDEX_TYPES(CUVIL_DECLARE_SCATTER_ELEMENTS, name, T, codec)
CUVIL_SCATTER_TYPES(CUVIL_DECLARE_SCATTER_ELEMENTS_ALL)

/* ScatterND: indices is [tuples, depth], each row t a position in data's
 * first `depth` dims (dim d of index_dims[d] elements, slices of
 * index_strides[d] elements apart); the slice of `slice` elements there
 *   out[offset(t) + s] (reduction)= updates[t * slice + s].
 * Tuples apply in order (the last of duplicates wins, as ONNX Runtime). A
 * task is a block of `block` elements of the slice, for every tuple:
 *   for t in [0, tuples): o = sum over d of indices[t, d] (checked) * index_strides[d]
 *     for s in the tasks' blocks: out[o + s] op= updates[t * slice + s]
 * Check d + 1: component d outside [-index_dims[d], index_dims[d]). */
struct cuvil_scatter_nd_params {
  int64_t index_dims[CUVIL_MAX_RANK];
  int64_t index_strides[CUVIL_MAX_RANK];
  int64_t depth, tuples;
  int64_t slice, block;
  int64_t reduction; /* cuvil_scatter_reduction */
  int64_t unused;
};
#define CUVIL_DECLARE_SCATTER_ND(name, T, codec)                                                   \
  CUVIL_KERNEL_DECL void cuvil_scatter_nd_##name(                                                  \
      T *out, const int64_t *indices, const T *updates, int64_t *error,                            \
      const struct cuvil_scatter_nd_params *p, int64_t begin, int64_t end);
CUVIL_SCATTER_TYPES(CUVIL_DECLARE_SCATTER_ND)

/* GatherND: indices is [batches * tuples, depth]; row r = b * tuples + t
 * picks in batch b of data (batch_stride elements each) the slice at its
 * position in the batch's first `depth` dims (as ScatterND's):
 *   out[r * slice + s] = data[b * batch_stride + offset(r) + s]
 * A task is one row. Check d + 1 as ScatterND's. By element size. */
struct cuvil_gather_nd_params {
  int64_t index_dims[CUVIL_MAX_RANK];
  int64_t index_strides[CUVIL_MAX_RANK];
  int64_t depth, tuples;
  int64_t slice, batch_stride;
};
#define CUVIL_DECLARE_GATHER_ND(size, T)                                                           \
  CUVIL_KERNEL_DECL void cuvil_gather_nd_##size(                                                   \
      const T *data, const int64_t *indices, T *out, int64_t *error,                               \
      const struct cuvil_gather_nd_params *p, int64_t begin, int64_t end);
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_GATHER_ND)

/* TensorScatter (a KV cache's update), the cache viewed as [prefixes,
 * max_seq, inner] and the update as [prefixes, seq, inner], prefixes the
 * dims before the sequence axis (the first the batch, per_batch prefixes
 * each):
 *   w = write_indices ? write_indices[prefix / per_batch] : 0
 *   for s in [0, seq): pos = w + s (circular: modulo max_seq)
 *     out[prefix, pos, :] = update[prefix, s, :]
 * out holds a copy of the past cache (the lowering's). A task is one
 * prefix. Check 1: a negative write index (as ONNX Runtime), or in linear
 * mode a position past max_seq. By element size. */
struct cuvil_tensor_scatter_params {
  int64_t per_batch, max_seq, seq, inner;
  int64_t circular, unused;
};
#define CUVIL_DECLARE_TENSOR_SCATTER(size, T)                                                      \
  CUVIL_KERNEL_DECL void cuvil_tensor_scatter_##size(                                              \
      T *out, const T *update, const int64_t *write_indices, int64_t *error,                       \
      const struct cuvil_tensor_scatter_params *p, int64_t begin, int64_t end);
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_TENSOR_SCATTER)

/* OneHot, y viewed as [outer, depth, inner] and indices as [outer, inner]:
 *   y[o, d, i] = values[position(indices[o, i]) == d]
 * (values[0] off, values[1] on), where position counts negative indices
 * from depth and an index outside [-depth, depth), or a float index that
 * is not a whole number, matches no d (ONNX Runtime compares in the
 * index's type). A task is one o: its rows filled with off, then on set
 * where the indices point. Check 1: depth below 1. By index type (name,
 * C type stored as, codec as above) and value element size. */
struct cuvil_onehot_params {
  int64_t depth, inner;
};
#define CUVIL_ONEHOT_INDEX_TYPES(X)                                                                \
  X(f32, float, 0)                                                                                 \
  X(f64, double, 0)                                                                                \
  X(f16, uint16_t, 1)                                                                              \
  X(i8, int8_t, 0)                                                                                 \
  X(u8, uint8_t, 0)                                                                                \
  X(i16, int16_t, 0)                                                                               \
  X(u16, uint16_t, 0) X(i32, int32_t, 0) X(u32, uint32_t, 0) X(i64, int64_t, 0) X(u64, uint64_t, 0)
#define CUVIL_DECLARE_ONEHOT(index, I, codec, size, T)                                             \
  CUVIL_KERNEL_DECL void cuvil_onehot_##index##_##size(                                            \
      const I *indices, const T *values, T *y, int64_t *error,                                     \
      const struct cuvil_onehot_params *p, int64_t begin, int64_t end);
#define CUVIL_ONEHOT_VALUE_SIZES(X, index, I, codec)                                               \
  X(index, I, codec, 1, uint8_t)                                                                   \
  X(index, I, codec, 2, uint16_t) X(index, I, codec, 4, uint32_t) X(index, I, codec, 8, uint64_t)
#define CUVIL_DECLARE_ONEHOTS(index, I, codec)                                                     \
  CUVIL_ONEHOT_VALUE_SIZES(CUVIL_DECLARE_ONEHOT, index, I, codec)
CUVIL_ONEHOT_INDEX_TYPES(CUVIL_DECLARE_ONEHOTS)

#endif /* CUVIL_KERNELS_INDEXING_H */
