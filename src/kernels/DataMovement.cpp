// Data movement: strided copies (Transpose, Slice, Expand, Concat, Split and
// plain copies), Gather and Cast. Kernels work on element sizes, not types.
//
// Strided copy over a rank-6 iteration space; a task is one innermost row:
//   for row in [begin, end):
//     src/dst offsets from row's coordinates over dims 0..4
//     for i in [0, shape[5]): dst[dOff + i*dStride5] = src[sOff + i*sStride5]
#include "KernelSupport.h"

#include "cuvil/kernels/DataMovement.h"

using namespace cuvil::kernels;

namespace {

template <typename T>
CUVIL_INLINE void copyRows(const T *src, T *dst, const cuvil_copy_params *p, int64_t begin,
                           int64_t end) {
  const int64_t *shape = p->shape, *srcStrides = p->src_strides, *dstStrides = p->dst_strides;
  int64_t inner = shape[5], ss = srcStrides[5], ds = dstStrides[5];
  for (int64_t row = begin; row < end; ++row) {
    int64_t rest = row, s = 0, d = 0;
    for (int dim = 4; dim >= 0; --dim) {
      int64_t coord = rest % shape[dim];
      rest /= shape[dim];
      s += coord * srcStrides[dim];
      d += coord * dstStrides[dim];
    }
    for (int64_t i = 0; i < inner; ++i)
      dst[d + i * ds] = src[s + i * ss];
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

// Cast between element types; a task is one element. Float to integer
// truncates toward zero like ONNX Runtime. bool is stored as u8 0/1: casts
// from bool use the u8 kernels, casts to bool compare with zero.
#define CUVIL_DEFINE_CAST(from, From, to, To, toBool)                                              \
  CUVIL_KERNEL void cuvil_cast_##from##_##to(const From *src, To *dst, int64_t begin,              \
                                             int64_t end) {                                        \
    for (int64_t i = begin; i < end; ++i)                                                          \
      dst[i] = toBool ? To(src[i] != From(0)) : To(src[i]);                                        \
  }
#define CUVIL_DEFINE_CASTS_FROM(from, From) CUVIL_CAST_TARGET_TYPES(CUVIL_DEFINE_CAST, from, From)
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

template <typename T>
CUVIL_INLINE void padRows(const T *src, T *dst, const cuvil_pad_params *p, int64_t begin,
                          int64_t end) {
  const int64_t *outShape = p->out_shape, *inShape = p->in_shape, *padsBegin = p->pads_begin;
  const int64_t mode = p->mode;
  const T fill = T(p->fill_bits);
  for (int64_t row = begin; row < end; ++row) {
    int64_t rest = row, base = 0, inStride = inShape[5];
    bool outside = false;
    for (int d = 4; d >= 0; --d) {
      int64_t index = padSource(rest % outShape[d] - padsBegin[d], inShape[d], mode);
      rest /= outShape[d];
      outside |= index < 0;
      base += index * inStride;
      inStride *= inShape[d];
    }
    T *to = dst + row * outShape[5];
    for (int64_t j = 0; j < outShape[5]; ++j) {
      int64_t index = padSource(j - padsBegin[5], inShape[5], mode);
      to[j] = outside || index < 0 ? fill : src[base + index];
    }
  }
}

} // namespace

#define CUVIL_DEFINE_PAD(size, T)                                                                  \
  CUVIL_KERNEL void cuvil_pad_##size(const T *src, T *dst, const cuvil_pad_params *p,              \
                                     int64_t begin, int64_t end) {                                 \
    padRows<T>(src, dst, p, begin, end);                                                           \
  }
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_PAD)
