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
