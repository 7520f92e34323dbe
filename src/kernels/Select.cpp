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
//
// Unique, x as [outer, n, inner], slice a = x[:, a, :]:
//   perm = [0, n) heap-sorted by (slice, index)       (perm lives in counts)
//   sorted:   walk perm's runs of equal slices; run g: indices[g] = its first
//             entry (the smallest index), inverse[a] = g for its members,
//             counts[g] = its length (perm[g] was read before it is written)
//   unsorted: inverse[a] = the first occurrence f of slice a (from the runs);
//             for a in [0, n): a == f opens group g (indices[g] = a) and
//             inverse[f] already holds f's group for every later a
//   y[o, g, :] = x[o, indices[g], :]; *count_slot = count
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

template <typename T> CUVIL_INLINE bool isNaN(T value) {
  if constexpr (T(1) / T(2) != T(0)) // a floating-point type
    return __builtin_isnan(value);
  else
    return false;
}

// Slices of x as [outer, n, inner], compared lexicographically over (o, i).
template <typename T> struct UniqueSlices {
  const T *x;
  int64_t outer, n, inner;

  // -1, 0, 1 as slice a is below, equal to or above slice b; NaN equals
  // NaN and is above every number.
  int compare(int64_t a, int64_t b) const {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        T u = x[(o * n + a) * inner + i], v = x[(o * n + b) * inner + i];
        bool uNaN = isNaN(u), vNaN = isNaN(v);
        if (uNaN || vNaN) {
          if (uNaN != vNaN)
            return uNaN ? 1 : -1;
          continue;
        }
        if (u != v)
          return u < v ? -1 : 1;
      }
    return 0;
  }
  bool before(int64_t a, int64_t b) const {
    int c = compare(a, b);
    return c != 0 ? c < 0 : a < b;
  }
};

template <typename T>
CUVIL_INLINE void siftDown(const UniqueSlices<T> &slices, int64_t *heap, int64_t root,
                           int64_t size) {
  for (;;) {
    int64_t child = 2 * root + 1;
    if (child >= size)
      return;
    if (child + 1 < size && slices.before(heap[child], heap[child + 1]))
      ++child;
    if (!slices.before(heap[root], heap[child]))
      return;
    int64_t t = heap[root];
    heap[root] = heap[child];
    heap[child] = t;
    root = child;
  }
}

template <typename T>
CUVIL_INLINE void unique(const T *x, T *y, int64_t *indices, int64_t *inverse, int64_t *counts,
                         int64_t *countSlot, const cuvil_unique_params *p) {
  const UniqueSlices<T> slices{x, p->outer, p->n, p->inner};
  const int64_t n = p->n;
  int64_t *perm = counts;
  for (int64_t a = 0; a < n; ++a)
    perm[a] = a;
  for (int64_t root = n / 2 - 1; root >= 0; --root)
    siftDown(slices, perm, root, n);
  for (int64_t size = n - 1; size > 0; --size) {
    int64_t t = perm[0];
    perm[0] = perm[size];
    perm[size] = t;
    siftDown(slices, perm, 0, size);
  }
  int64_t count = 0;
  if (p->sorted) {
    int64_t start = 0, previous = -1;
    for (int64_t j = 0; j < n; ++j) {
      int64_t a = perm[j];
      if (j == 0 || slices.compare(previous, a) != 0) {
        if (count > 0)
          counts[count - 1] = j - start;
        indices[count++] = a;
        start = j;
      }
      inverse[a] = count - 1;
      previous = a;
    }
    if (count > 0)
      counts[count - 1] = n - start;
  } else {
    int64_t first = -1;
    for (int64_t j = 0; j < n; ++j) {
      int64_t a = perm[j];
      if (j == 0 || slices.compare(first, a) != 0)
        first = a;
      inverse[a] = first;
    }
    for (int64_t a = 0; a < n; ++a) {
      int64_t f = inverse[a];
      if (f == a) {
        indices[count] = a;
        counts[count] = 1;
        inverse[a] = count++;
      } else {
        inverse[a] = inverse[f];
        ++counts[inverse[a]];
      }
    }
  }
  for (int64_t o = 0; o < p->outer; ++o)
    for (int64_t g = 0; g < count; ++g) {
      const T *from = x + (o * n + indices[g]) * p->inner;
      T *to = y + (o * count + g) * p->inner;
      for (int64_t i = 0; i < p->inner; ++i)
        to[i] = from[i];
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

#define CUVIL_DEFINE_UNIQUE(name, T)                                                               \
  CUVIL_KERNEL void cuvil_unique_##name(                                                           \
      const T *x, T *y, int64_t *indices, int64_t *inverse, int64_t *counts, int64_t *count,       \
      const cuvil_unique_params *p, int64_t begin, int64_t end) {                                  \
    if (begin < end)                                                                               \
      unique<T>(x, y, indices, inverse, counts, count, p);                                         \
  }
CUVIL_UNIQUE_TYPES(CUVIL_DEFINE_UNIQUE)
