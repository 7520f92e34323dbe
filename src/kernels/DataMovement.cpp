// Data movement: strided copies (Transpose, Slice, Expand, Concat, Split and
// plain copies), Gather and Cast. Kernels work on element sizes, not types.
//
// Strided copy over a rank-6 iteration space; a task is one innermost row:
//   for row in [begin, end):
//     src/dst offsets from row's coordinates over dims 0..4
//     for i in [0, shape[5]): dst[dOff + i*dStride5] = src[sOff + i*sStride5]
#include "KernelSupport.h"

using namespace cuvil::kernels;

namespace {

template <typename T>
CUVIL_INLINE void copyRows(const T *src, T *dst, const int64_t *shape, const int64_t *srcStrides,
                           const int64_t *dstStrides, int64_t begin, int64_t end) {
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
CUVIL_INLINE void gatherRows(const T *data, const I *indices, T *out, int64_t axisDim,
                             int64_t inner, int64_t numIndices, int64_t begin, int64_t end) {
  for (int64_t row = begin; row < end; ++row) {
    int64_t o = row / numIndices, j = row % numIndices;
    int64_t index = int64_t(indices[j]);
    index = index < 0 ? index + axisDim : index;
    index = index < 0 ? 0 : (index >= axisDim ? axisDim - 1 : index);
    const T *from = data + (o * axisDim + index) * inner;
    T *to = out + row * inner;
    for (int64_t i = 0; i < inner; ++i)
      to[i] = from[i];
  }
}

} // namespace

#define CUVIL_COPY_KERNEL(name, T)                                                                 \
  CUVIL_KERNEL void name(const T *src, T *dst, const int64_t *shape, const int64_t *srcStrides,    \
                         const int64_t *dstStrides, int64_t begin, int64_t end) {                  \
    copyRows<T>(src, dst, shape, srcStrides, dstStrides, begin, end);                              \
  }
CUVIL_COPY_KERNEL(cuvil_copy_1, uint8_t)
CUVIL_COPY_KERNEL(cuvil_copy_2, uint16_t)
CUVIL_COPY_KERNEL(cuvil_copy_4, uint32_t)
CUVIL_COPY_KERNEL(cuvil_copy_8, uint64_t)

#define CUVIL_GATHER_KERNEL(name, T, I)                                                            \
  CUVIL_KERNEL void name(const T *data, const I *indices, T *out, int64_t axisDim, int64_t inner,  \
                         int64_t numIndices, int64_t begin, int64_t end) {                         \
    gatherRows<T, I>(data, indices, out, axisDim, inner, numIndices, begin, end);                  \
  }
CUVIL_GATHER_KERNEL(cuvil_gather_1_i32, uint8_t, int32_t)
CUVIL_GATHER_KERNEL(cuvil_gather_2_i32, uint16_t, int32_t)
CUVIL_GATHER_KERNEL(cuvil_gather_4_i32, uint32_t, int32_t)
CUVIL_GATHER_KERNEL(cuvil_gather_8_i32, uint64_t, int32_t)
CUVIL_GATHER_KERNEL(cuvil_gather_1_i64, uint8_t, int64_t)
CUVIL_GATHER_KERNEL(cuvil_gather_2_i64, uint16_t, int64_t)
CUVIL_GATHER_KERNEL(cuvil_gather_4_i64, uint32_t, int64_t)
CUVIL_GATHER_KERNEL(cuvil_gather_8_i64, uint64_t, int64_t)

// Cast between element types; a task is one element. Float to integer
// truncates toward zero like ONNX Runtime. bool is stored as u8 0/1: casts
// from bool use the u8 kernels, casts to bool compare with zero.
#define CUVIL_CAST_KERNEL(fromName, From, toName, To)                                              \
  CUVIL_KERNEL void cuvil_cast_##fromName##_##toName(const From *src, To *dst, int64_t begin,      \
                                                     int64_t end) {                                \
    for (int64_t i = begin; i < end; ++i)                                                          \
      dst[i] = To(src[i]);                                                                         \
  }

#define CUVIL_CAST_FROM(fromName, From)                                                            \
  CUVIL_KERNEL void cuvil_cast_##fromName##_bool(const From *src, uint8_t *dst, int64_t begin,     \
                                                 int64_t end) {                                    \
    for (int64_t i = begin; i < end; ++i)                                                          \
      dst[i] = src[i] != From(0);                                                                  \
  }                                                                                                \
  CUVIL_CAST_KERNEL(fromName, From, f32, float)                                                    \
  CUVIL_CAST_KERNEL(fromName, From, f64, double)                                                   \
  CUVIL_CAST_KERNEL(fromName, From, i8, int8_t)                                                    \
  CUVIL_CAST_KERNEL(fromName, From, u8, uint8_t)                                                   \
  CUVIL_CAST_KERNEL(fromName, From, i32, int32_t)                                                  \
  CUVIL_CAST_KERNEL(fromName, From, i64, int64_t)

CUVIL_CAST_FROM(f32, float)
CUVIL_CAST_FROM(f64, double)
CUVIL_CAST_FROM(i8, int8_t)
CUVIL_CAST_FROM(u8, uint8_t)
CUVIL_CAST_FROM(i32, int32_t)
CUVIL_CAST_FROM(i64, int64_t)

// dst[i] = the low bytes of `bits`; a task is one element.
#define CUVIL_FILL_KERNEL(name, T)                                                                 \
  CUVIL_KERNEL void name(T *dst, int64_t bits, int64_t begin, int64_t end) {                       \
    for (int64_t i = begin; i < end; ++i)                                                          \
      dst[i] = T(bits);                                                                            \
  }
CUVIL_FILL_KERNEL(cuvil_fill_1, uint8_t)
CUVIL_FILL_KERNEL(cuvil_fill_2, uint16_t)
CUVIL_FILL_KERNEL(cuvil_fill_4, uint32_t)
CUVIL_FILL_KERNEL(cuvil_fill_8, uint64_t)

// Pad over a rank-6 space. p = outShape[6], inShape[6], padsBegin[6], mode
// (0 constant, 1 reflect, 2 edge, 3 wrap). A task is one output row:
//   for each output element: i = out_index - padsBegin, mapped into the input
//   by the mode; constant mode writes `bits` where i falls outside.
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
CUVIL_INLINE void padRows(const T *src, T *dst, const int64_t *p, int64_t bits, int64_t begin,
                          int64_t end) {
  const int64_t *outShape = p, *inShape = p + 6, *padsBegin = p + 12, mode = p[18];
  const T fill = T(bits);
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

#define CUVIL_PAD_KERNEL(name, T)                                                                  \
  CUVIL_KERNEL void name(const T *src, T *dst, const int64_t *p, int64_t bits, int64_t begin,      \
                         int64_t end) {                                                            \
    padRows<T>(src, dst, p, bits, begin, end);                                                     \
  }
CUVIL_PAD_KERNEL(cuvil_pad_1, uint8_t)
CUVIL_PAD_KERNEL(cuvil_pad_2, uint16_t)
CUVIL_PAD_KERNEL(cuvil_pad_4, uint32_t)
CUVIL_PAD_KERNEL(cuvil_pad_8, uint64_t)
