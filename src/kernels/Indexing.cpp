// Index kernels: ScatterElements, ScatterND, GatherND, OneHot and
// TensorScatter (loop nests
// in include/cuvil/kernels/Indexing.h). Every index is checked before it
// addresses memory; a bad one raises the error cell and ends the task.
#include "ElementCodec.h"
#include "KernelSupport.h"

#include "cuvil/kernels/Indexing.h"

using namespace cuvil::kernels;

namespace {

// n elements from `from` to `to`, 32 bytes (a vector register) at a time:
// the slices ScatterND and GatherND move are often whole rows.
template <typename T> CUVIL_INLINE void copyElements(T *to, const T *from, int64_t n) {
  constexpr int64_t kLanes = 32 / int64_t(sizeof(T));
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    __builtin_memcpy(to + i, from + i, 32);
  for (; i < n; ++i)
    to[i] = from[i];
}

// e (reduction) u for elements of codec C stored as T; integers wrap (the
// arithmetic is unsigned, as wide as the largest type), bool adds as or
// and multiplies as and, max and min keep e unless u compares past it (so
// a NaN update replaces only through the comparison, as ONNX Runtime).
template <int C, typename T> CUVIL_INLINE T combine(int64_t reduction, T e, T u) {
  if (reduction == CUVIL_SCATTER_NONE)
    return u;
  if constexpr (C == kBool) {
    bool either = reduction == CUVIL_SCATTER_ADD || reduction == CUVIL_SCATTER_MAX;
    return either ? T(e | u) : T(e & u);
  } else {
    auto a = decodeElement<C>(e), b = decodeElement<C>(u);
    using V = decltype(a);
    V result;
    if constexpr (__is_integral(V)) {
      if (reduction == CUVIL_SCATTER_ADD)
        return V(uint64_t(a) + uint64_t(b));
      if (reduction == CUVIL_SCATTER_MUL)
        return V(uint64_t(a) * uint64_t(b));
    }
    switch (reduction) {
    case CUVIL_SCATTER_ADD:
      result = a + b;
      break;
    case CUVIL_SCATTER_MUL:
      result = a * b;
      break;
    case CUVIL_SCATTER_MAX:
      result = a > b ? a : b;
      break;
    default:
      result = a < b ? a : b;
      break;
    }
    return encodeElement<C, T>(result);
  }
}

// Contiguous strides of a rank-6 shape, in elements.
CUVIL_INLINE void contiguousStrides(const int64_t *shape, int64_t *strides) {
  strides[CUVIL_MAX_RANK - 1] = 1;
  for (int d = CUVIL_MAX_RANK - 1; d > 0; --d)
    strides[d - 1] = strides[d] * shape[d];
}

template <int C, typename T, typename I>
CUVIL_INLINE void scatterElements(T *out, const I *indices, const T *updates, int64_t *error,
                                  const cuvil_scatter_elements_params *p, int64_t begin,
                                  int64_t end) {
  const int64_t axis = p->axis;
  for (int d = 0; d < CUVIL_MAX_RANK; ++d)
    if (d != axis && p->shape[d] > p->data_shape[d])
      return raiseError(error, 2, p->shape[d]);
  int64_t strides[CUVIL_MAX_RANK];
  contiguousStrides(p->shape, strides);
  // The last dim off the axis: fibers differing in it run side by side.
  const int64_t last = axis == CUVIL_MAX_RANK - 1 ? CUVIL_MAX_RANK - 2 : CUVIL_MAX_RANK - 1;
  const int64_t length = p->shape[axis], step = strides[axis], outStep = p->data_strides[axis];
  const int64_t runStride = strides[last], outRunStride = p->data_strides[last];
  for (int64_t fiber = begin; fiber < end;) {
    int64_t rest = fiber, at = 0, outAt = 0, l = 0;
    for (int d = CUVIL_MAX_RANK - 1; d >= 0; --d) {
      if (d == axis)
        continue;
      int64_t coordinate = rest % p->shape[d];
      rest /= p->shape[d];
      at += coordinate * strides[d];
      outAt += coordinate * p->data_strides[d];
      l = d == last ? coordinate : l;
    }
    int64_t run = p->shape[last] - l < end - fiber ? p->shape[last] - l : end - fiber;
    for (int64_t j = 0; j < length; ++j)
      for (int64_t r = 0; r < run; ++r) {
        int64_t from = at + j * step + r * runStride;
        int64_t k = checkedIndex(indices[from], p->axis_dim, error);
        if (k < 0)
          return;
        T &target = out[outAt + k * outStep + r * outRunStride];
        target = combine<C>(p->reduction, target, updates[from]);
      }
    fiber += run;
  }
}

// The element offset of index tuple `tuple` (depth components), or -1
// after raising the check of the first component out of range.
CUVIL_INLINE int64_t tupleOffset(const int64_t *tuple, int64_t depth, const int64_t *dims,
                                 const int64_t *strides, int64_t *error) {
  int64_t offset = 0;
  for (int64_t d = 0; d < depth; ++d) {
    int64_t k = checkedIndex(tuple[d], dims[d], error, d + 1);
    if (k < 0)
      return -1;
    offset += k * strides[d];
  }
  return offset;
}

template <int C, typename T>
CUVIL_INLINE void scatterND(T *out, const int64_t *indices, const T *updates, int64_t *error,
                            const cuvil_scatter_nd_params *p, int64_t begin, int64_t end) {
  const int64_t slice = p->slice, low = begin * p->block;
  const int64_t high = end * p->block < slice ? end * p->block : slice;
  for (int64_t t = 0; t < p->tuples; ++t) {
    int64_t offset =
        tupleOffset(indices + t * p->depth, p->depth, p->index_dims, p->index_strides, error);
    if (offset < 0)
      return;
    T *to = out + offset;
    const T *from = updates + t * slice;
    if (p->reduction == CUVIL_SCATTER_NONE) {
      copyElements(to + low, from + low, high - low);
      continue;
    }
    for (int64_t s = low; s < high; ++s)
      to[s] = combine<C>(p->reduction, to[s], from[s]);
  }
}

template <typename T>
CUVIL_INLINE void gatherND(const T *data, const int64_t *indices, T *out, int64_t *error,
                           const cuvil_gather_nd_params *p, int64_t begin, int64_t end) {
  for (int64_t row = begin; row < end; ++row) {
    int64_t offset =
        tupleOffset(indices + row * p->depth, p->depth, p->index_dims, p->index_strides, error);
    if (offset < 0)
      return;
    copyElements(out + row * p->slice, data + row / p->tuples * p->batch_stride + offset, p->slice);
  }
}

template <typename T>
CUVIL_INLINE void tensorScatter(T *out, const T *update, const int64_t *writeIndices,
                                int64_t *error, const cuvil_tensor_scatter_params *p, int64_t begin,
                                int64_t end) {
  const int64_t maxSeq = p->max_seq, inner = p->inner;
  for (int64_t prefix = begin; prefix < end; ++prefix) {
    const int64_t first = writeIndices ? writeIndices[prefix / p->per_batch] : 0;
    if (first < 0)
      return raiseError(error, 1, first);
    for (int64_t s = 0; s < p->seq; ++s) {
      // first + s is only formed below max_seq (no overflow).
      const int64_t position = p->circular       ? (first % maxSeq + s) % maxSeq
                               : first >= maxSeq ? first
                                                 : first + s;
      if (position >= maxSeq)
        return raiseError(error, 1, position);
      copyElements(out + (prefix * maxSeq + position) * inner,
                   update + (prefix * p->seq + s) * inner, inner);
    }
  }
}

// Where index `index` of codec C sets the one: in [0, depth), or -1.
template <int C, typename I> CUVIL_INLINE int64_t oneHotPosition(I index, int64_t depth) {
  auto value = decodeElement<C>(index);
  using V = decltype(value);
  if constexpr (!__is_integral(V)) {
    V position = value < V(0) ? value + V(depth) : value;
    bool whole = position >= V(0) && position < V(depth) &&
                 __builtin_trunc(double(position)) == double(position);
    return whole ? int64_t(position) : -1;
  } else if constexpr (V(-1) > V(0)) {
    return uint64_t(value) < uint64_t(depth) ? int64_t(value) : -1;
  } else {
    int64_t position = value < 0 ? int64_t(value) + depth : int64_t(value);
    return position >= 0 && position < depth ? position : -1;
  }
}

template <int C, typename I, typename T>
CUVIL_INLINE void oneHot(const I *indices, const T *values, T *y, int64_t *error,
                         const cuvil_onehot_params *p, int64_t begin, int64_t end) {
  const int64_t depth = p->depth, inner = p->inner;
  if (depth < 1)
    return raiseError(error, 1, depth);
  const T off = values[0], on = values[1];
  for (int64_t o = begin; o < end; ++o) {
    T *rows = y + o * depth * inner;
    for (int64_t e = 0; e < depth * inner; ++e)
      rows[e] = off;
    for (int64_t i = 0; i < inner; ++i) {
      int64_t d = oneHotPosition<C>(indices[o * inner + i], depth);
      if (d >= 0)
        rows[d * inner + i] = on;
    }
  }
}

} // namespace

#define CUVIL_DEFINE_SCATTER_ELEMENTS(name, T, codec, index, I)                                    \
  CUVIL_KERNEL void cuvil_scatter_elements_##name##_##index(                                       \
      T *out, const I *indices, const T *updates, int64_t *error,                                  \
      const cuvil_scatter_elements_params *p, int64_t begin, int64_t end) {                        \
    scatterElements<codec, T, I>(out, indices, updates, error, p, begin, end);                     \
  }
#define CUVIL_DEFINE_SCATTER_ELEMENTS_ALL(name, T, codec)                                          \
  CUVIL_SCATTER_INDEX_TYPES(CUVIL_DEFINE_SCATTER_ELEMENTS, name, T, codec)
CUVIL_SCATTER_TYPES(CUVIL_DEFINE_SCATTER_ELEMENTS_ALL)

#define CUVIL_DEFINE_SCATTER_ND(name, T, codec)                                                    \
  CUVIL_KERNEL void cuvil_scatter_nd_##name(T *out, const int64_t *indices, const T *updates,      \
                                            int64_t *error, const cuvil_scatter_nd_params *p,      \
                                            int64_t begin, int64_t end) {                          \
    scatterND<codec, T>(out, indices, updates, error, p, begin, end);                              \
  }
CUVIL_SCATTER_TYPES(CUVIL_DEFINE_SCATTER_ND)

#define CUVIL_DEFINE_GATHER_ND(size, T)                                                            \
  CUVIL_KERNEL void cuvil_gather_nd_##size(const T *data, const int64_t *indices, T *out,          \
                                           int64_t *error, const cuvil_gather_nd_params *p,        \
                                           int64_t begin, int64_t end) {                           \
    gatherND<T>(data, indices, out, error, p, begin, end);                                         \
  }
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_GATHER_ND)

#define CUVIL_DEFINE_TENSOR_SCATTER(size, T)                                                       \
  CUVIL_KERNEL void cuvil_tensor_scatter_##size(                                                   \
      T *out, const T *update, const int64_t *write_indices, int64_t *error,                       \
      const cuvil_tensor_scatter_params *p, int64_t begin, int64_t end) {                          \
    tensorScatter<T>(out, update, write_indices, error, p, begin, end);                            \
  }
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_TENSOR_SCATTER)

#define CUVIL_DEFINE_ONEHOT(index, I, codec, size, T)                                              \
  CUVIL_KERNEL void cuvil_onehot_##index##_##size(const I *indices, const T *values, T *y,         \
                                                  int64_t *error, const cuvil_onehot_params *p,    \
                                                  int64_t begin, int64_t end) {                    \
    oneHot<codec, I, T>(indices, values, y, error, p, begin, end);                                 \
  }
#define CUVIL_DEFINE_ONEHOTS(index, I, codec)                                                      \
  CUVIL_ONEHOT_VALUE_SIZES(CUVIL_DEFINE_ONEHOT, index, I, codec)
CUVIL_ONEHOT_INDEX_TYPES(CUVIL_DEFINE_ONEHOTS)
