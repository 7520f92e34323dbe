// Shared by all microkernels. Kernels are freestanding C++: no libc, no
// allocation, no global state. They are compiled to LLVM bitcode at build time
// and specialised per call site with constant arguments, so generic loops over
// shapes turn into fixed-trip-count loops that LLVM vectorises for the target.
//
// Math functions here are branch-free (selects, not branches) so loops that
// call them still vectorise.
#pragma once

#include "cuvil/kernels/Common.h"

#define CUVIL_KERNEL extern "C"
#define CUVIL_INLINE static inline __attribute__((always_inline))
// A lambda called in a loop, inlined like a CUVIL_INLINE helper.
#define CUVIL_LAMBDA_INLINE __attribute__((always_inline))
// A register-tile instance a kernel selects at run time from its constant
// arguments (tile width, block count, ...). It stays out of line in the
// bitcode so that specialising a call clones only the kernel's dispatch code;
// the backend then prunes the dispatch with the call's constants and inlines
// just the instances still reached (see linkKernels in Backend.cpp).
#define CUVIL_TILE static __attribute__((noinline))
// A dispatch case no lowering selects: the call check refuses register
// tiles and variants a kernel does not instantiate (the *_INSTANTIATED
// predicates in include/cuvil/kernels/), so reaching one is a compiler bug,
// and it traps rather than computing nothing.
#define CUVIL_NOT_INSTANTIATED() __builtin_unreachable()

namespace cuvil::kernels {

typedef float v16 __attribute__((ext_vector_type(16)));
typedef int32_t i32x16 __attribute__((ext_vector_type(16)));
typedef float v8 __attribute__((ext_vector_type(8)));
typedef int32_t i32x8 __attribute__((ext_vector_type(8)));

// The integer type of the same shape as float type T (float or v16).
template <typename T> struct IntOf;
template <> struct IntOf<float> {
  using type = int32_t;
};
template <> struct IntOf<v16> {
  using type = i32x16;
};
template <> struct IntOf<v8> {
  using type = i32x8;
};

// Refuses the kernel's data through the run's error cell (KernelArg::error):
// the offending value, then the number (from 1) of the check that failed,
// which the generated code tests after the call. Tasks on several threads
// may both raise; either report is true.
CUVIL_INLINE void raiseError(int64_t *error, int64_t check, int64_t value) {
  __atomic_store_n(&error[1], value, __ATOMIC_RELAXED);
  __atomic_store_n(&error[0], check, __ATOMIC_RELEASE);
}

// An index into an axis of `extent` elements, negative ones counting from
// the end; out of range raises check `check` (default the first) and gives
// -1.
template <typename I>
CUVIL_INLINE int64_t checkedIndex(I index, int64_t extent, int64_t *error, int64_t check = 1) {
  int64_t i = int64_t(index) < 0 ? int64_t(index) + extent : int64_t(index);
  if (i < 0 || i >= extent) {
    raiseError(error, check, int64_t(index));
    return -1;
  }
  return i;
}

template <typename To, typename From> CUVIL_INLINE To bitCast(From value) {
  return __builtin_bit_cast(To, value);
}
template <typename To, typename From> CUVIL_INLINE To convert(From value) {
  if constexpr (sizeof(From) == sizeof(float))
    return To(value);
  else
    return __builtin_convertvector(value, To);
}

// Math below works on float and on v16 alike (selects, not branches), so the
// same code serves scalar loops that LLVM vectorises and explicit vectors.
template <typename T> CUVIL_INLINE T minf(T a, T b) { return __builtin_elementwise_min(a, b); }
template <typename T> CUVIL_INLINE T maxf(T a, T b) { return __builtin_elementwise_max(a, b); }
template <typename T> CUVIL_INLINE T absf(T x) { return __builtin_elementwise_abs(x); }
template <typename T> CUVIL_INLINE T copysignf(T magnitude, T sign) {
  return __builtin_elementwise_copysign(magnitude, sign);
}
template <typename T, typename C> CUVIL_INLINE T select(C condition, T a, T b) {
  return condition ? a : b;
}
// The smaller and larger of a and b by one plain compare each (vminps,
// vmaxps), where minf's and maxf's NaN handling adds a compare and a blend
// to a reduction's chain: a NaN `a` gives b (so a running minimum or
// maximum, the accumulator as b, skips NaN elements).
template <typename T> CUVIL_INLINE T smallerOf(T a, T b) { return select(a < b, a, b); }
template <typename T> CUVIL_INLINE T largerOf(T a, T b) { return select(a > b, a, b); }

// exp(x) for x in [-87.3, 88.7] (or NaN): x = n ln2 + r with |r| <= ln2/2,
// exp(r) by the Cephes polynomial, 2^n by building the exponent bits.
template <typename T> CUVIL_INLINE T expfInRange(T x) {
  using I = typename IntOf<T>::type;
  T n = __builtin_elementwise_roundeven(x * 1.44269504088896341f);
  T r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  T p = T(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  T er = p * (r * r) + r + 1.0f;
  T scale = bitCast<T>(I((convert<I>(n) + 127) << 23));
  return er * scale;
}

// exp(x). Inputs are clamped to the finite range, so very negative x gives
// ~1e-38 rather than 0 (harmless for softmax sums). The clamps are plain
// compares, which let a NaN through (minf and maxf would replace it).
template <typename T> CUVIL_INLINE T expf(T x) {
  x = select(x > T(88.7f), T(88.7f), x);
  return expfInRange(select(x < T(-87.3f), T(-87.3f), x));
}

// exp(x) for x <= 0, a softmax's x - max: only the lower clamp (a NaN score
// makes its row NaN, as in ONNX Runtime).
template <typename T> CUVIL_INLINE T expfNonPositive(T x) {
  return expfInRange(select(x < T(-87.3f), T(-87.3f), x));
}

// log(x) for x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)), Cephes
// polynomial for log(m). Non-positive x gives nan (x < 0) or -inf (x == 0).
template <typename T> CUVIL_INLINE T logf(T x) {
  using I = typename IntOf<T>::type;
  I bits = bitCast<I>(x);
  I exponent = ((bits >> 23) & 0xff) - 126;
  T m = bitCast<T>(I((bits & 0x007fffff) | 0x3f000000)); // in [0.5, 1)
  auto small = m < 0.70710678118654752f;
  T fe = convert<T>(exponent) - select(small, T(1.0f), T(0.0f));
  m = select(small, m + m - 1.0f, m - 1.0f);
  T z = m * m;
  T p = T(7.0376836292e-2f);
  p = p * m - 1.1514610310e-1f;
  p = p * m + 1.1676998740e-1f;
  p = p * m - 1.2420140846e-1f;
  p = p * m + 1.4249322787e-1f;
  p = p * m - 1.6668057665e-1f;
  p = p * m + 2.0000714765e-1f;
  p = p * m - 2.4999993993e-1f;
  p = p * m + 3.3333331174e-1f;
  T y = m * z * p + fe * -2.12194440e-4f - 0.5f * z;
  y = m + y + fe * 0.693359375f;
  y = select(x == 0.0f, T(-__builtin_inff()), y);
  y = select(x < 0.0f || x != x, T(__builtin_nanf("")), y);
  return select(x == __builtin_inff(), x, y);
}

// erf(x) = x P(x^2) / Q(x^2) for |x| < 4, +-1 beyond (erf(4) rounds to 1 in
// float): one rational function over the whole range (tools/fit_erf.py fits
// it; max abs error 2.8e-7 in float, 2e-9 in exact arithmetic), so no lane
// computes two branches and an exponential as a piecewise fit would: GELU's
// epilogue on BERT's FFN GEMM took 1.6 ms per 384 x 3072 that way.
template <typename T> CUVIL_INLINE T erff(T x) {
  T ax = minf(absf(x), T(4.0f));
  T t = ax * ax;
  T p = T(7.009987155611037e-06f);
  p = p * t + 4.166708931370905e-04f;
  p = p * t + 4.230252533378700e-03f;
  p = p * t + 5.583357694259261e-02f;
  p = p * t + 1.925845440926282e-01f;
  p = p * t + 1.128379186681560e+00f;
  T q = T(2.722778100952991e-07f);
  q = q * t + 7.414822953529036e-05f;
  q = q * t + 1.428856338670070e-03f;
  q = q * t + 1.632117003037653e-02f;
  q = q * t + 1.174823787685265e-01f;
  q = q * t + 5.040072153080015e-01f;
  q = q * t + 1.0f;
  T magnitude = minf(ax * p / q, T(1.0f));
  return select(x != x, x, copysignf(magnitude, x)); // nan stays nan
}

template <typename T> CUVIL_INLINE T sigmoidf(T x) { return 1.0f / (1.0f + expf(-x)); }

// tanh(x) = 1 - 2 / (exp(2|x|) + 1) with the sign restored; a short odd
// polynomial near 0 avoids the cancellation there.
template <typename T> CUVIL_INLINE T tanhf(T x) {
  T ax = absf(x);
  T large = 1.0f - 2.0f / (expf(2.0f * ax) + 1.0f);
  T t = ax * ax;
  T small = ax + ax * t * (-0.333333333f + t * (0.133333333f + t * -0.0539682540f));
  return copysignf(select(ax < 0.0625f, small, large), x);
}

template <typename T> CUVIL_INLINE T geluErf(T x) {
  return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
}

// pow for any base: exp(y log|x|), negative bases allowed for integral y.
CUVIL_INLINE float powf(float x, float y) {
  float magnitude = expf(y * logf(absf(x)));
  bool integral = __builtin_truncf(y) == y;
  bool odd = integral && __builtin_truncf(y * 0.5f) != y * 0.5f;
  float result =
      x < 0.0f ? (integral ? (odd ? -magnitude : magnitude) : __builtin_nanf("")) : magnitude;
  result = x == 0.0f ? (y > 0.0f ? 0.0f : (y == 0.0f ? 1.0f : __builtin_inff())) : result;
  return y == 0.0f ? 1.0f : result;
}

} // namespace cuvil::kernels

#include "Trigonometric.h"

namespace cuvil::kernels {

// x = op(x) where op takes a few instructions (no exp, log, erf or
// trigonometric polynomial): true; false, x unchanged, for the other ops.
template <typename T> CUVIL_INLINE bool applyCheapUnary(int64_t op, T &x, float alpha, float beta) {
  switch (op) {
  case CUVIL_UNARY_IDENTITY:
    return true;
  case CUVIL_UNARY_RELU:
    x = maxf(x, T(0.0f));
    return true;
  case CUVIL_UNARY_CLIP:
    x = minf(maxf(x, T(alpha)), T(beta));
    return true;
  case CUVIL_UNARY_HARDSWISH:
    x = x * minf(maxf(x + 3.0f, T(0.0f)), T(6.0f)) * (1.0f / 6.0f);
    return true;
  case CUVIL_UNARY_LEAKYRELU:
    x = select(x < 0.0f, alpha * x, x);
    return true;
  case CUVIL_UNARY_NEG:
    x = -x;
    return true;
  case CUVIL_UNARY_ABS:
    x = absf(x);
    return true;
  case CUVIL_UNARY_SQRT:
    x = __builtin_elementwise_sqrt(x);
    return true;
  case CUVIL_UNARY_RECIPROCAL:
    x = 1.0f / x;
    return true;
  case CUVIL_UNARY_FLOOR:
    x = __builtin_elementwise_floor(x);
    return true;
  case CUVIL_UNARY_CEIL:
    x = __builtin_elementwise_ceil(x);
    return true;
  case CUVIL_UNARY_SQUARE:
    x = x * x;
    return true;
  case CUVIL_UNARY_HARDSIGMOID:
    x = maxf(T(0.0f), minf(T(1.0f), alpha * x + beta));
    return true;
  case CUVIL_UNARY_SOFTSIGN:
    x = x / (1.0f + absf(x));
    return true;
  case CUVIL_UNARY_ROUND:
    x = __builtin_elementwise_roundeven(x);
    return true;
  case CUVIL_UNARY_SIGN:
    x = select(x > 0.0f, T(1.0f), select(x < 0.0f, T(-1.0f), x));
    return true;
  case CUVIL_UNARY_THRESHOLDED_RELU:
    x = select(x > alpha, x, T(0.0f));
    return true;
  case CUVIL_UNARY_SHRINK:
    x = select(x < -alpha, x + beta, select(x > alpha, x - beta, T(0.0f)));
    return true;
  case CUVIL_UNARY_AFFINE:
    x = alpha * x + beta;
    return true;
  case CUVIL_UNARY_FAKE_QUANT_U8:
  case CUVIL_UNARY_FAKE_QUANT_I8: {
    const float lowest = op == CUVIL_UNARY_FAKE_QUANT_U8 ? 0.0f : -128.0f;
    const T q = __builtin_elementwise_roundeven(x * (1.0f / alpha));
    x = minf(maxf(q, T(lowest - beta)), T(lowest + 255.0f - beta)) * alpha;
    return true;
  }
  default:
    return false;
  }
}

// Applies a cuvil_unary_op to a float, v8 or v16; `op` is a constant after
// specialisation.
template <typename T> CUVIL_INLINE T applyUnary(int64_t op, T x, float alpha, float beta) {
  if (applyCheapUnary(op, x, alpha, beta))
    return x;
  switch (op) {
  case CUVIL_UNARY_SIGMOID:
    return sigmoidf(x);
  case CUVIL_UNARY_TANH:
    return tanhf(x);
  case CUVIL_UNARY_GELU_ERF:
    return geluErf(x);
  case CUVIL_UNARY_GELU_TANH:
    return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
  case CUVIL_UNARY_SILU:
    return x * sigmoidf(x);
  case CUVIL_UNARY_SWISH:
    return x * sigmoidf(alpha * x);
  case CUVIL_UNARY_EXP:
    return expf(x);
  case CUVIL_UNARY_LOG:
    return logf(x);
  case CUVIL_UNARY_ERF:
    return erff(x);
  case CUVIL_UNARY_ELU:
    return select(x < 0.0f, alpha * (expf(x) - 1.0f), x);
  case CUVIL_UNARY_SELU:
    return beta * select(x <= 0.0f, alpha * (expf(x) - 1.0f), x);
  case CUVIL_UNARY_SOFTPLUS:
    // max(x, 0) + log(1 + e^-|x|): no overflow for large x.
    return maxf(x, T(0.0f)) + logf(1.0f + expf(-absf(x)));
  case CUVIL_UNARY_MISH:
    return x * tanhf(maxf(x, T(0.0f)) + logf(1.0f + expf(-absf(x))));
  case CUVIL_UNARY_SIN:
    return sinf(x);
  case CUVIL_UNARY_COS:
    return cosf(x);
  case CUVIL_UNARY_TAN:
    return tanf(x);
  case CUVIL_UNARY_ASIN:
    return asinf(x);
  case CUVIL_UNARY_ACOS:
    return acosf(x);
  case CUVIL_UNARY_ATAN:
    return atanf(x);
  case CUVIL_UNARY_SINH:
    return sinhf(x);
  case CUVIL_UNARY_COSH:
    return coshf(x);
  case CUVIL_UNARY_ASINH:
    return asinhf(x);
  case CUVIL_UNARY_ACOSH:
    return acoshf(x);
  case CUVIL_UNARY_ATANH:
    return atanhf(x);
  case CUVIL_UNARY_SCALED_TANH:
    return alpha * tanhf(beta * x);
  case CUVIL_UNARY_POW: {
    if constexpr (sizeof(T) == sizeof(float)) {
      return powf(x, alpha);
    } else {
      T r;
      for (int i = 0; i < int(sizeof(T) / sizeof(float)); ++i)
        r[i] = powf(x[i], alpha);
      return r;
    }
  }
  default:
    return x;
  }
}

template <typename T> CUVIL_INLINE T applyUnary(const cuvil_unary &f, T x) {
  return applyUnary<T>(f.op, x, f.alpha, f.beta);
}

// x[i] = f(x[i]) for a register tile's N results. A tile that applied
// applyUnary to each result carried N copies of its switch, polynomials and
// all (a 6 x 4 GEMM tile: 78k lines of IR), which the optimiser worked
// through whole before the specialisation's constant op removed them: most
// of compiling a small model. The cheap ops stay unrolled in registers; the
// others run as one loop over the results (on the stack: a load and a store
// beside tens of instructions of polynomial).
template <typename V, int N> CUVIL_INLINE void applyUnaryEach(const cuvil_unary &f, V (&x)[N]) {
  bool cheap = true;
#pragma clang loop unroll(full)
  for (int i = 0; i < N; ++i)
    cheap = applyCheapUnary(f.op, x[i], f.alpha, f.beta);
  if (cheap)
    return;
#pragma clang loop unroll(disable)
  for (int i = 0; i < N; ++i)
    x[i] = applyUnary<V>(f, x[i]);
}

} // namespace cuvil::kernels
