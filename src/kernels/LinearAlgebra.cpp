// Einsum's general contraction and Det.
//
// Einsum, a task per output row r (the output loops but the last, j):
//   a0, b0 = the offsets of r; row[:] = 0
//   for s over the summed loops (an odometer stepping a and b by their strides):
//     for j: row[j] += a[a0 + as + j sa] * b[b0 + bs + j sb]
// so the inner loop runs along the output's last axis, contiguous in y.
//
// Det, a task per matrix:
//   lu = the matrix in f64; det = 1
//   for k: pivot p = the row >= k with the largest |lu[p][k]| (0: det = 0)
//          swap rows k, p (det = -det); det *= lu[k][k]
//          for i > k: lu[i][k+1:] -= lu[i][k] / lu[k][k] * lu[k][k+1:]
#include "KernelSupport.h"

#include "cuvil/kernels/LinearAlgebra.h"

using namespace cuvil::kernels;

namespace {

// Integers accumulate in their unsigned twin, so that overflow wraps
// around instead of being undefined.
template <typename T> struct Wrapping {
  using type = T;
};
template <> struct Wrapping<int32_t> {
  using type = uint32_t;
};
template <> struct Wrapping<int64_t> {
  using type = uint64_t;
};

template <typename T>
CUVIL_INLINE void einsumRows(const T *a, const T *b, T *y, const cuvil_einsum_params *p,
                             int64_t begin, int64_t end) {
  using U = typename Wrapping<T>::type;
  const int64_t outLoops = p->out_loops, loops = p->loops;
  const int64_t last = outLoops - 1;
  const int64_t width = outLoops > 0 ? p->extents[last] : 1;
  const int64_t sa = outLoops > 0 ? p->a_strides[last] : 0;
  const int64_t sb = outLoops > 0 ? p->b_strides[last] : 0;
  int64_t summed = 1;
  for (int64_t d = outLoops; d < loops; ++d)
    summed *= p->extents[d];
  for (int64_t r = begin; r < end; ++r) {
    int64_t aAt = 0, bAt = 0, rest = r;
    for (int64_t d = last - 1; d >= 0; --d) {
      const int64_t i = rest % p->extents[d];
      rest /= p->extents[d];
      aAt += i * p->a_strides[d];
      bAt += i * p->b_strides[d];
    }
    U *row = reinterpret_cast<U *>(y + r * width);
    for (int64_t j = 0; j < width; ++j)
      row[j] = U(0);
    int64_t index[CUVIL_EINSUM_MAX_LOOPS] = {};
    for (int64_t s = 0; s < summed; ++s) {
      for (int64_t j = 0; j < width; ++j)
        row[j] += U(a[aAt + j * sa]) * (b ? U(b[bAt + j * sb]) : U(1));
      for (int64_t d = loops - 1; d >= outLoops; --d) {
        aAt += p->a_strides[d];
        bAt += p->b_strides[d];
        if (++index[d] < p->extents[d])
          break;
        aAt -= p->extents[d] * p->a_strides[d];
        bAt -= p->extents[d] * p->b_strides[d];
        index[d] = 0;
      }
    }
  }
}

} // namespace

#define CUVIL_DEFINE_EINSUM(name, T)                                                               \
  CUVIL_KERNEL void cuvil_einsum_##name(                                                           \
      const T *a, const T *b, T *y, const cuvil_einsum_params *p, int64_t begin, int64_t end) {    \
    einsumRows<T>(a, b, y, p, begin, end);                                                         \
  }
CUVIL_EINSUM_TYPES(CUVIL_DEFINE_EINSUM)

CUVIL_KERNEL void cuvil_det_f32(const float *x, float *y, int64_t n, int64_t begin, int64_t end) {
  double lu[CUVIL_DET_MAX_ORDER * CUVIL_DET_MAX_ORDER];
  for (int64_t task = begin; task < end; ++task) {
    const float *matrix = x + task * n * n;
    for (int64_t i = 0; i < n * n; ++i)
      lu[i] = double(matrix[i]);
    double det = 1.0;
    for (int64_t k = 0; k < n; ++k) {
      int64_t pivot = k;
      double largest = absf(lu[k * n + k]);
      for (int64_t i = k + 1; i < n; ++i)
        if (absf(lu[i * n + k]) > largest) {
          largest = absf(lu[i * n + k]);
          pivot = i;
        }
      if (largest == 0.0) {
        det = 0.0;
        break;
      }
      if (pivot != k) {
        for (int64_t j = k; j < n; ++j) {
          double t = lu[k * n + j];
          lu[k * n + j] = lu[pivot * n + j];
          lu[pivot * n + j] = t;
        }
        det = -det;
      }
      const double diagonal = lu[k * n + k];
      det *= diagonal;
      for (int64_t i = k + 1; i < n; ++i) {
        const double factor = lu[i * n + k] / diagonal;
        for (int64_t j = k + 1; j < n; ++j)
          lu[i * n + j] -= factor * lu[k * n + j];
      }
    }
    y[task] = float(det);
  }
}
