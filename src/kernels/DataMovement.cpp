// Data movement: strided copies (Transpose, Slice, Expand, Concat, Split and
// plain copies), Gather and Cast. Kernels work on element sizes, not types.
//
// Strided copy over a rank-6 iteration space; a task is one innermost row:
//   for row in [begin, end):
//     src/dst offsets from row's coordinates over dims 0..4 (stepped from
//     the previous row's, an odometer)
//     for i in [0, shape[5]): dst[dOff + i*dStride5] = src[sOff + i*sStride5]
// (a transpose of the inner two dims goes in 16 x 16 blocks, copyRows).
#include "ElementCodec.h"
#include "KernelSupport.h"

#include "cuvil/kernels/DataMovement.h"

using namespace cuvil::kernels;

namespace {

// Steps a row's coordinates over dims 4 down to 0 and its offsets to the
// next row: an odometer, no division.
CUVIL_INLINE void nextRow(const cuvil_copy_params *p, int64_t (&at)[5], int64_t &s, int64_t &d) {
  for (int dim = 4; dim >= 0; --dim) {
    s += p->src_strides[dim];
    d += p->dst_strides[dim];
    if (++at[dim] < p->shape[dim])
      return;
    s -= p->shape[dim] * p->src_strides[dim];
    d -= p->shape[dim] * p->dst_strides[dim];
    at[dim] = 0;
  }
}

template <typename T>
CUVIL_INLINE void copyRows(const T *src, T *dst, const cuvil_copy_params *p, int64_t begin,
                           int64_t end) {
  const int64_t *shape = p->shape, *srcStrides = p->src_strides, *dstStrides = p->dst_strides;
  const int64_t inner = shape[5], ss = srcStrides[5], ds = dstStrides[5];
  if (begin >= end) // an empty range: a zero-sized dim must not be divided by
    return;
  int64_t at[5], s = 0, d = 0; // the row's coordinates over dims 0-4 and offsets
  for (int64_t dim = 4, rest = begin; dim >= 0; --dim) {
    at[dim] = rest % shape[dim];
    rest /= shape[dim];
    s += at[dim] * srcStrides[dim];
    d += at[dim] * dstStrides[dim];
  }
  // A transpose of the two inner dims (the source contiguous along dim 4)
  // copied a row at a time reads one element per cache line, and with a
  // power-of-two pitch (attention's K^T: 768 floats) those lines fall in a
  // few L1 sets and evict each other before the next row reuses them. It
  // goes in blocks of 16 rows x 16 elements instead, whose 16 source lines
  // stay in L1:
  //   for a run of up to 16 rows along dim 4:
  //     for i0 in steps of 16: for row in run: for i in [i0, i0 + 16): copy
  constexpr int64_t kBlock = 16;
  const bool transposed = ss != 1 && srcStrides[4] == 1 && shape[4] > 1;
  for (int64_t row = begin; row < end;) {
    int64_t run = end - row < shape[4] - at[4] ? end - row : shape[4] - at[4];
    run = transposed ? (run < kBlock ? run : kBlock) : 1;
    const int64_t ds4 = dstStrides[4];
    for (int64_t i0 = 0; i0 < inner; i0 += kBlock) {
      const int64_t i1 = transposed ? (inner - i0 < kBlock ? inner : i0 + kBlock) : inner;
      for (int64_t r = 0; r < run; ++r) {
        const T *from = src + s + r; // a run of several rows has a unit stride along dim 4
        T *to = dst + d + r * ds4;
        if (ss == 1 && ds == 1)
          for (int64_t i = i0; i < i1; ++i)
            to[i] = from[i];
        else
          for (int64_t i = i0; i < i1; ++i)
            to[i * ds] = from[i * ss];
      }
      if (!transposed)
        break;
    }
    for (int64_t r = 0; r < run; ++r)
      nextRow(p, at, s, d);
    row += run;
  }
}

// out[o, j, :] = data[o, wrap(indices[j]), :]; a task is one (o, j) row.
// Out-of-range indices are clamped: a kernel cannot report errors and must
// never read outside its buffers.
template <typename T, typename I>
CUVIL_INLINE void gatherRows(const T *data, const I *indices, T *out, int64_t *error,
                             int64_t axisDim, int64_t inner, int64_t numIndices, int64_t begin,
                             int64_t end) {
  for (int64_t row = begin; row < end; ++row) {
    int64_t o = row / numIndices, j = row % numIndices;
    int64_t index = checkedIndex(indices[j], axisDim, error);
    if (index < 0)
      return;
    const T *from = data + (o * axisDim + index) * inner;
    T *to = out + row * inner;
    for (int64_t i = 0; i < inner; ++i)
      to[i] = from[i];
  }
}

} // namespace

#define CUVIL_DEFINE_COPY(size, T)                                                                 \
  CUVIL_KERNEL void cuvil_copy_##size(const T *src, T *dst, const cuvil_copy_params *p,            \
                                      int64_t begin, int64_t end) {                                \
    copyRows<T>(src, dst, p, begin, end);                                                          \
  }
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_COPY)

#define CUVIL_DEFINE_GATHER(size, T, index, I)                                                     \
  CUVIL_KERNEL void cuvil_gather_##size##_##index(                                                 \
      const T *data, const I *indices, T *out, int64_t *error, int64_t axisDim, int64_t inner,     \
      int64_t numIndices, int64_t begin, int64_t end) {                                            \
    gatherRows<T, I>(data, indices, out, error, axisDim, inner, numIndices, begin, end);           \
  }
#define CUVIL_DEFINE_GATHERS(size, T) CUVIL_GATHER_INDEX_TYPES(CUVIL_DEFINE_GATHER, size, T)
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_GATHERS)

// GatherElements over rank 6, a task per row of the last dim (indices dims
// off the axis checked against data's first):
//   for each row (i0..i4): base = sum over d < 5, d != axis of i_d stride_d
//     for j: k = indices[row, j] (checked); out[row, j] =
//       data[base + k stride_axis + (axis == 5 ? 0 : j stride_5)]
namespace {
template <typename T, typename I>
CUVIL_INLINE void gatherElementRows(const T *data, const I *indices, T *out, int64_t *error,
                                    const cuvil_gather_elements_params *p, int64_t begin,
                                    int64_t end) {
  constexpr int kLast = CUVIL_MAX_RANK - 1;
  const int64_t width = p->shape[kLast], axis = p->axis;
  for (int d = 0; d < CUVIL_MAX_RANK; ++d)
    if (d != axis && p->shape[d] > p->data_shape[d])
      return raiseError(error, 2, p->shape[d]);
  for (int64_t row = begin; row < end; ++row) {
    int64_t base = 0, remaining = row;
    for (int d = kLast - 1; d >= 0; --d) {
      int64_t coordinate = remaining % p->shape[d];
      remaining /= p->shape[d];
      base += d == axis ? 0 : coordinate * p->data_strides[d];
    }
    for (int64_t j = 0; j < width; ++j) {
      int64_t k = checkedIndex(indices[row * width + j], p->axis_dim, error);
      if (k < 0)
        return;
      int64_t inner = axis == kLast ? 0 : j * p->data_strides[kLast];
      out[row * width + j] = data[base + k * p->data_strides[axis] + inner];
    }
  }
}
} // namespace

#define CUVIL_DEFINE_GATHER_ELEMENTS(size, T, index, I)                                            \
  CUVIL_KERNEL void cuvil_gather_elements_##size##_##index(                                        \
      const T *data, const I *indices, T *out, int64_t *error,                                     \
      const cuvil_gather_elements_params *p, int64_t begin, int64_t end) {                         \
    gatherElementRows<T, I>(data, indices, out, error, p, begin, end);                             \
  }
#define CUVIL_DEFINE_GATHER_ELEMENTS_ALL(size, T)                                                  \
  CUVIL_GATHER_INDEX_TYPES(CUVIL_DEFINE_GATHER_ELEMENTS, size, T)
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_GATHER_ELEMENTS_ALL)

// ReverseSequence, a task per (b, t): the source step s = t < len ?
// len - 1 - t : t, then y[b, t, :] = x[b, s, :].
namespace {
template <typename T>
CUVIL_INLINE void reverseSteps(const T *x, const int64_t *lens, T *y, int64_t *error,
                               const cuvil_reverse_sequence_params *p, int64_t begin, int64_t end) {
  const int64_t time = p->time, inner = p->inner;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t b = task / time, t = task % time, length = lens[b];
    if (length < 0 || length > time)
      return raiseError(error, 1, length);
    const int64_t from = t < length ? length - 1 - t : t;
    const T *src = x + b * p->batch_stride + from * p->time_stride;
    T *dst = y + b * p->batch_stride + t * p->time_stride;
    for (int64_t i = 0; i < inner; ++i)
      dst[i] = src[i];
  }
}
} // namespace
#define CUVIL_DEFINE_REVERSE_SEQUENCE(size, T)                                                     \
  CUVIL_KERNEL void cuvil_reverse_sequence_##size(                                                 \
      const T *x, const int64_t *lens, T *y, int64_t *error,                                       \
      const cuvil_reverse_sequence_params *p, int64_t begin, int64_t end) {                        \
    reverseSteps<T>(x, lens, y, error, p, begin, end);                                             \
  }
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_REVERSE_SEQUENCE)

// Trilu, a task per matrix row r: y[r, j] = keep(j - r) ? x[r, j] : 0.
#define CUVIL_DEFINE_TRILU(size, T)                                                                \
  CUVIL_KERNEL void cuvil_trilu_##size(const T *x, const int64_t *k, T *y,                         \
                                       const cuvil_trilu_params *p, int64_t begin, int64_t end) {  \
    const int64_t diagonal = k ? *k : 0;                                                           \
    for (int64_t task = begin; task < end; ++task) {                                               \
      int64_t r = task % p->rows;                                                                  \
      const T *from = x + task * p->cols;                                                          \
      T *to = y + task * p->cols;                                                                  \
      for (int64_t j = 0; j < p->cols; ++j) {                                                      \
        bool keep = p->upper ? j - r >= diagonal : j - r <= diagonal;                              \
        to[j] = keep ? from[j] : T(0);                                                             \
      }                                                                                            \
    }                                                                                              \
  }
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_TRILU)

// EyeLike, a task per row r: y[r, j] = j - r == k ? one : 0.
#define CUVIL_DEFINE_EYE(size, T)                                                                  \
  CUVIL_KERNEL void cuvil_eye_##size(T *y, const cuvil_eye_params *p, int64_t begin,               \
                                     int64_t end) {                                                \
    for (int64_t r = begin; r < end; ++r)                                                          \
      for (int64_t j = 0; j < p->cols; ++j)                                                        \
        y[r * p->cols + j] = j - r == p->k ? T(p->one_bits) : T(0);                                \
  }
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_EYE)

// Cast between element types; a task is one element. Float to integer
// truncates toward zero like ONNX Runtime; half and bfloat16 go through
// float (f64 to half rounds twice, as ONNX Runtime does). bool is stored as
// u8 0/1: casts from bool use the u8 kernels, casts to bool compare with
// zero (ElementCodec.h).
#define CUVIL_DEFINE_CAST(from, From, fromCodec, to, To, toCodec)                                  \
  CUVIL_KERNEL void cuvil_cast_##from##_##to(const From *src, To *dst, int64_t begin,              \
                                             int64_t end) {                                        \
    for (int64_t i = begin; i < end; ++i)                                                          \
      dst[i] = encodeElement<toCodec, To>(decodeElement<fromCodec>(src[i]));                       \
  }
#define CUVIL_DEFINE_CASTS_FROM(from, From, fromCodec)                                             \
  CUVIL_CAST_TARGET_TYPES(CUVIL_DEFINE_CAST, from, From, fromCodec)
CUVIL_CAST_SOURCE_TYPES(CUVIL_DEFINE_CASTS_FROM)

// dst[i] = the low bytes of `bits`; a task is one element.
#define CUVIL_DEFINE_FILL(size, T)                                                                 \
  CUVIL_KERNEL void cuvil_fill_##size(T *dst, int64_t bits, int64_t begin, int64_t end) {          \
    for (int64_t i = begin; i < end; ++i)                                                          \
      dst[i] = T(bits);                                                                            \
  }
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_FILL)

// Pad over a rank-6 space, mode 0 constant, 1 reflect, 2 edge, 3 wrap. A
// task is one output row:
//   for each output element: i = out_index - pads_begin, mapped into the
//   input by the mode; constant mode writes fill_bits where i falls outside.
// Rows are walked with an odometer over the outer five dims (no division
// per row), and a constant-mode row is a fill, a copy and a fill.
namespace {

CUVIL_INLINE int64_t padSource(int64_t i, int64_t n, int64_t mode) {
  if (mode == 2)
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
  if (mode == 3)
    return ((i % n) + n) % n;
  if (mode == 1) {
    if (n == 1)
      return 0;
    int64_t period = 2 * n - 2;
    i = ((i % period) + period) % period;
    return i >= n ? period - i : i;
  }
  return i >= 0 && i < n ? i : -1;
}

// Output row `to` from input row `from` (null: the row lies in padding).
template <typename T>
CUVIL_INLINE void padRow(const T *from, T *to, const cuvil_pad_params *p, T fill) {
  const int64_t width = p->out_shape[5], inWidth = p->in_shape[5], pad = p->pads_begin[5];
  if (p->mode == 0) {
    int64_t lo = pad < 0 ? 0 : (pad < width ? pad : width);
    int64_t hi = pad + inWidth < width ? pad + inWidth : width;
    hi = from && hi > lo ? hi : lo;
    for (int64_t j = 0; j < lo; ++j)
      to[j] = fill;
    for (int64_t j = lo; j < hi; ++j)
      to[j] = from[j - pad];
    for (int64_t j = hi; j < width; ++j)
      to[j] = fill;
    return;
  }
  for (int64_t j = 0; j < width; ++j) {
    int64_t index = padSource(j - pad, inWidth, p->mode);
    to[j] = !from || index < 0 ? fill : from[index];
  }
}

template <typename T>
CUVIL_INLINE void padRows(const T *src, T *dst, const cuvil_pad_params *p, int64_t begin,
                          int64_t end) {
  const int64_t *outShape = p->out_shape, *inShape = p->in_shape, *padsBegin = p->pads_begin;
  const T fill = T(p->fill_bits);
  if (begin >= end) // an empty range: a zero-sized dim must not be divided by
    return;
  int64_t at[5]; // the row's output index in dims 0-4
  for (int64_t d = 4, rest = begin; d >= 0; --d) {
    at[d] = rest % outShape[d];
    rest /= outShape[d];
  }
  for (int64_t row = begin; row < end; ++row) {
    int64_t base = 0, inStride = inShape[5];
    bool outside = false;
    for (int d = 4; d >= 0; --d) {
      int64_t index = padSource(at[d] - padsBegin[d], inShape[d], p->mode);
      outside |= index < 0;
      base += index * inStride;
      inStride *= inShape[d];
    }
    padRow<T>(outside ? nullptr : src + base, dst + row * outShape[5], p, fill);
    for (int d = 4; d >= 0 && ++at[d] == outShape[d]; --d)
      at[d] = 0;
  }
}

} // namespace

#define CUVIL_DEFINE_PAD(size, T)                                                                  \
  CUVIL_KERNEL void cuvil_pad_##size(const T *src, T *dst, const cuvil_pad_params *p,              \
                                     int64_t begin, int64_t end) {                                 \
    padRows<T>(src, dst, p, begin, end);                                                           \
  }
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_PAD)

// Range, y[i] = start + i * delta: each element from its index, so that any
// chunk of tasks starts anywhere (ONNX Runtime accumulates; the two differ
// by rounding only).
#define CUVIL_DEFINE_RANGE(name, T)                                                                \
  CUVIL_KERNEL void cuvil_range_##name(const T *start, const T *delta, T *y, int64_t begin,        \
                                       int64_t end) {                                              \
    for (int64_t i = begin; i < end; ++i)                                                          \
      y[i] = T(*start + T(i) * *delta);                                                            \
  }
CUVIL_RANGE_TYPES(CUVIL_DEFINE_RANGE)
