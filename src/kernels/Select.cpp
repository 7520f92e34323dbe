// Kernels whose output extent comes from the data. One task each: the
// extent is known only after reading the whole input (or condition).
//
// NonZero, two sweeps over x (row-major):
//   count = #{i : x[i] != 0}
//   k = 0; for i with x[i] != 0: for d in [0, rank): y[d * count + k] = coord_d(i); ++k
//   *count_slot = count
// The coordinates advance like an odometer, so no division per element.
//
// Compress, x as [outer, axis_len, inner]:
//   n = min(cond_len, axis_len); count = #{a < n : cond[a]}
//   for o: k = 0; for a < n with cond[a]: y[o, k++, :] = x[o, a, :]
//   *count_slot = count
#include "KernelSupport.h"

#include "cuvil/kernels/Select.h"

namespace {

template <typename T, uint64_t Mask> CUVIL_INLINE bool isNonZero(T value) {
  if constexpr (Mask == 0)
    return value != T(0);
  else
    return (uint64_t(value) & Mask) != 0;
}

template <typename T, uint64_t Mask>
CUVIL_INLINE void nonZero(const T *x, int64_t *y, int64_t *countSlot,
                          const cuvil_nonzero_params *p) {
  int64_t count = 0;
  for (int64_t i = 0; i < p->elements; ++i)
    count += isNonZero<T, Mask>(x[i]) ? 1 : 0;
  int64_t rank = p->rank, coord[CUVIL_MAX_RANK] = {};
  int64_t k = 0;
  for (int64_t i = 0; i < p->elements; ++i) {
    if (isNonZero<T, Mask>(x[i])) {
      for (int64_t d = 0; d < rank; ++d)
        y[d * count + k] = coord[d];
      ++k;
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++coord[d] < p->shape[d])
        break;
      coord[d] = 0;
    }
  }
  *countSlot = count;
}

template <typename T>
CUVIL_INLINE void compress(const T *x, const uint8_t *cond, T *y, int64_t *countSlot,
                           const cuvil_compress_params *p) {
  int64_t n = p->cond_len < p->axis_len ? p->cond_len : p->axis_len;
  int64_t count = 0;
  for (int64_t a = 0; a < n; ++a)
    count += cond[a] ? 1 : 0;
  int64_t inner = p->inner;
  for (int64_t o = 0; o < p->outer; ++o) {
    const T *from = x + o * p->axis_len * inner;
    T *to = y + o * count * inner;
    for (int64_t a = 0; a < n; ++a) {
      if (!cond[a])
        continue;
      for (int64_t i = 0; i < inner; ++i)
        to[i] = from[a * inner + i];
      to += inner;
    }
  }
  *countSlot = count;
}

} // namespace

#define CUVIL_DEFINE_NONZERO(name, T, mask)                                                        \
  CUVIL_KERNEL void cuvil_nonzero_##name(const T *x, int64_t *y, int64_t *count,                   \
                                         const cuvil_nonzero_params *p, int64_t begin,             \
                                         int64_t end) {                                            \
    if (begin < end)                                                                               \
      nonZero<T, uint64_t(mask)>(x, y, count, p);                                                  \
  }
CUVIL_NONZERO_TYPES(CUVIL_DEFINE_NONZERO)

#define CUVIL_DEFINE_COMPRESS(size, T)                                                             \
  CUVIL_KERNEL void cuvil_compress_##size(const T *x, const uint8_t *cond, T *y, int64_t *count,   \
                                          const cuvil_compress_params *p, int64_t begin,           \
                                          int64_t end) {                                           \
    if (begin < end)                                                                               \
      compress<T>(x, cond, y, count, p);                                                           \
  }
CUVIL_ELEMENT_SIZES(CUVIL_DEFINE_COMPRESS)
