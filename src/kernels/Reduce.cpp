// Reductions over any set of axes. The lowering splits the input's dims into
// kept dims (the output's index space) and reduced dims, each padded to rank 6
// with element strides; a task is one output element:
//   base = offset of the output element's coordinates in x
//   acc = init; for every reduced coordinate r: acc = op(acc, x[base + r.stride])
//   y[task] = finish(acc)
// Reducing the innermost, contiguous dims (the common case) leaves a
// unit-stride innermost loop that vectorises. Keeping them instead (a
// global pool over the blocked layout, [N, CB, H, W, 16] -> [N, CB, 1, 1,
// 16]) leaves 16 contiguous outputs: the lowering then sets inner_vector and a
// task is one vector of 16 outputs, reduced with vector loads.
#include "Vector.h"

#include "cuvil/kernels/Reduce.h"

using namespace cuvil::kernels;

// Sums may be reordered so that they vectorise (ONNX Runtime does the same).
#pragma clang fp reassociate(on)

namespace {
// An integer type's largest and smallest values (two's complement).
template <typename T>
constexpr T kHighest = T(~T(0)) > T(0) ? T(~T(0)) : T(~(T(1) << (sizeof(T) * 8 - 1)));
template <typename T> constexpr T kLowest = T(~T(0)) > T(0) ? T(0) : T(-kHighest<T> - 1);

template <typename T> CUVIL_INLINE T reduceInit(int64_t op) {
  switch (op) {
  case CUVIL_REDUCE_MAX:
    if constexpr (__is_integral(T))
      return kLowest<T>;
    else
      return T(-__builtin_inff());
  case CUVIL_REDUCE_MIN:
    if constexpr (__is_integral(T))
      return kHighest<T>;
    else
      return T(__builtin_inff());
  case CUVIL_REDUCE_PROD:
    return T(1);
  default:
    return T(0);
  }
}

// Integers take Max, Min, Prod and Sum only (the lowering allows no
// other); Prod and Sum wrap on overflow (two's complement, through the
// overflow builtins).
template <typename T> CUVIL_INLINE T reduceStep(int64_t op, T acc, T v) {
  if (op == CUVIL_REDUCE_MAX)
    return maxf(acc, v);
  if (op == CUVIL_REDUCE_MIN)
    return minf(acc, v);
  if constexpr (__is_integral(T)) {
    T wrapped;
    if (op == CUVIL_REDUCE_PROD)
      __builtin_mul_overflow(acc, v, &wrapped);
    else
      __builtin_add_overflow(acc, v, &wrapped);
    return wrapped;
  } else {
    switch (op) {
    case CUVIL_REDUCE_PROD:
      return acc * v;
    case CUVIL_REDUCE_SUM_SQUARE:
    case CUVIL_REDUCE_L2:
      return acc + v * v;
    case CUVIL_REDUCE_L1:
      return acc + absf(v);
    default:
      return acc + v;
    }
  }
}

template <typename T> CUVIL_INLINE T reduceFinish(int64_t op, T acc, int64_t count) {
  if constexpr (!__is_integral(T))
    switch (op) {
    case CUVIL_REDUCE_MEAN:
      return acc / decltype(acc)(count);
    case CUVIL_REDUCE_L2:
      return __builtin_elementwise_sqrt(acc);
    default:
      break;
    }
  return acc;
}
// T = E (float, double): a task is one output; T = v16 (E = float): 16
// consecutive outputs.
template <typename E, typename T>
CUVIL_INLINE void reduceTasks(const E *x, E *y, const cuvil_reduce_params *p, int64_t begin,
                              int64_t end) {
  constexpr int64_t kLanes = sizeof(T) / sizeof(E);
  const int64_t op = p->op;
  const int64_t *rs = p->reduced_shape;
  const int64_t *rt = p->reduced_strides;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t out = task * kLanes;
    int64_t rest = out, base = 0;
    for (int d = 5; d >= 0; --d) {
      base += (rest % p->kept_shape[d]) * p->kept_strides[d];
      rest /= p->kept_shape[d];
    }
    T acc = reduceInit<T>(op);
    for (int64_t i0 = 0; i0 < rs[0]; ++i0)
      for (int64_t i1 = 0; i1 < rs[1]; ++i1)
        for (int64_t i2 = 0; i2 < rs[2]; ++i2)
          for (int64_t i3 = 0; i3 < rs[3]; ++i3)
            for (int64_t i4 = 0; i4 < rs[4]; ++i4) {
              const E *xr =
                  x + base + i0 * rt[0] + i1 * rt[1] + i2 * rt[2] + i3 * rt[3] + i4 * rt[4];
              for (int64_t i5 = 0; i5 < rs[5]; ++i5) {
                if constexpr (kLanes == 1)
                  acc = reduceStep<T>(op, acc, xr[i5 * rt[5]]);
                else
                  acc = reduceStep<T>(op, acc, loadV<T>(xr + i5 * rt[5]));
              }
            }
    if constexpr (kLanes == 1)
      y[out] = reduceFinish<T>(op, acc, p->count);
    else
      storeV(y + out, reduceFinish<T>(op, acc, p->count));
  }
}
} // namespace

CUVIL_KERNEL void cuvil_reduce_f32(const float *x, float *y, const cuvil_reduce_params *p,
                                   int64_t begin, int64_t end) {
  if (p->inner_vector)
    return reduceTasks<float, v16>(x, y, p, begin, end);
  reduceTasks<float, float>(x, y, p, begin, end);
}

CUVIL_KERNEL void cuvil_reduce_f64(const double *x, double *y, const cuvil_reduce_params *p,
                                   int64_t begin, int64_t end) {
  reduceTasks<double, double>(x, y, p, begin, end);
}

#define CUVIL_DEFINE_INTEGER_REDUCE(name, T)                                                       \
  CUVIL_KERNEL void cuvil_reduce_##name(const T *x, T *y, const cuvil_reduce_params *p,            \
                                        int64_t begin, int64_t end) {                              \
    reduceTasks<T, T>(x, y, p, begin, end);                                                        \
  }
CUVIL_REDUCE_INTEGER_TYPES(CUVIL_DEFINE_INTEGER_REDUCE)

// ArgMax / ArgMin, a task per output element:
//   for k in [0, axis_dim): v = x[o, k, i]; keep k if v beats the best
//   (strictly, or also on ties with select_last)
namespace {
template <typename T>
CUVIL_INLINE void argReduce(const T *x, int64_t *y, const cuvil_arg_reduce_params *p, int64_t begin,
                            int64_t end) {
  for (int64_t e = begin; e < end; ++e) {
    int64_t o = e / p->inner, i = e % p->inner;
    const T *column = x + o * p->axis_dim * p->inner + i;
    T best = column[0];
    int64_t bestIndex = 0;
    for (int64_t k = 1; k < p->axis_dim; ++k) {
      T v = column[k * p->inner];
      bool beats = p->minimum ? (v < best || (p->select_last && v == best))
                              : (v > best || (p->select_last && v == best));
      if (beats) {
        best = v;
        bestIndex = k;
      }
    }
    y[e] = bestIndex;
  }
}
} // namespace

// Hardmax, a task per line (o, i): the first largest as in argReduce, then
//   y[o, a, i] = a == best ? 1 : 0 for a in [0, axis_dim)
namespace {
template <typename T>
CUVIL_INLINE void hardmax(const T *x, T *y, const cuvil_hardmax_params *p, int64_t begin,
                          int64_t end) {
  for (int64_t e = begin; e < end; ++e) {
    int64_t o = e / p->inner, i = e % p->inner, base = o * p->axis_dim * p->inner + i;
    T best = x[base];
    int64_t bestIndex = 0;
    for (int64_t k = 1; k < p->axis_dim; ++k)
      if (x[base + k * p->inner] > best) {
        best = x[base + k * p->inner];
        bestIndex = k;
      }
    for (int64_t k = 0; k < p->axis_dim; ++k)
      y[base + k * p->inner] = k == bestIndex ? T(1) : T(0);
  }
}
} // namespace

#define CUVIL_DEFINE_HARDMAX(name, T)                                                              \
  CUVIL_KERNEL void cuvil_hardmax_##name(const T *x, T *y, const cuvil_hardmax_params *p,          \
                                         int64_t begin, int64_t end) {                             \
    hardmax<T>(x, y, p, begin, end);                                                               \
  }
CUVIL_HARDMAX_TYPES(CUVIL_DEFINE_HARDMAX)

#define CUVIL_DEFINE_ARG_REDUCE(name, T)                                                           \
  CUVIL_KERNEL void cuvil_arg_reduce_##name(                                                       \
      const T *x, int64_t *y, const cuvil_arg_reduce_params *p, int64_t begin, int64_t end) {      \
    argReduce<T>(x, y, p, begin, end);                                                             \
  }
CUVIL_ARG_REDUCE_TYPES(CUVIL_DEFINE_ARG_REDUCE)

// CumSum, per outer index o, the scan's rows in order (the inner loop is
// contiguous, so it vectorises):
//   for step in [0, axis_dim): a = reverse ? axis_dim - 1 - step : step
//     y[o, a, :] = (exclusive ? 0 : x[o, a, :]) + (step ? running[:] : 0)
//     where running is the sum of the rows before a in scan order
// The running sum lives in the previous output row: inclusive, y[prev] is it;
// exclusive, y[prev] + x[prev] is it.
namespace {
template <typename T>
CUVIL_INLINE void cumSum(const T *x, T *y, const cuvil_cumsum_params *p, int64_t begin,
                         int64_t end) {
  const int64_t n = p->axis_dim, inner = p->inner;
  for (int64_t o = begin; o < end; ++o) {
    const T *xo = x + o * n * inner;
    T *yo = y + o * n * inner;
    for (int64_t step = 0; step < n; ++step) {
      int64_t a = p->reverse ? n - 1 - step : step, prev = p->reverse ? a + 1 : a - 1;
      T *row = yo + a * inner;
      const T *in = xo + a * inner;
      if (step == 0) {
        for (int64_t i = 0; i < inner; ++i)
          row[i] = p->exclusive ? T(0) : in[i];
      } else if (p->exclusive) {
        const T *prevIn = xo + prev * inner, *prevOut = yo + prev * inner;
        for (int64_t i = 0; i < inner; ++i)
          row[i] = prevOut[i] + prevIn[i];
      } else {
        const T *prevOut = yo + prev * inner;
        for (int64_t i = 0; i < inner; ++i)
          row[i] = prevOut[i] + in[i];
      }
    }
  }
}
} // namespace

#define CUVIL_DEFINE_CUMSUM(name, T)                                                               \
  CUVIL_KERNEL void cuvil_cumsum_##name(const T *x, T *y, const cuvil_cumsum_params *p,            \
                                        int64_t begin, int64_t end) {                              \
    cumSum<T>(x, y, p, begin, end);                                                                \
  }
CUVIL_CUMSUM_TYPES(CUVIL_DEFINE_CUMSUM)
