// Shared by all microkernels. Kernels are freestanding C++: no libc, no
// allocation, no global state. They are compiled to LLVM bitcode at build time
// and specialised per call site with constant arguments, so generic loops over
// shapes turn into fixed-trip-count loops that LLVM vectorises for the target.
//
// Math functions here are branch-free (selects, not branches) so loops that
// call them still vectorise.
#pragma once

#include "cuvil/kernels/KernelParams.h"

#include <stdint.h>

#define CUVIL_KERNEL extern "C"
#define CUVIL_INLINE static inline __attribute__((always_inline))

namespace cuvil::kernels {

template <typename To, typename From> CUVIL_INLINE To bitCast(From value) {
  return __builtin_bit_cast(To, value);
}

CUVIL_INLINE float minf(float a, float b) { return a < b ? a : b; }
CUVIL_INLINE float maxf(float a, float b) { return a > b ? a : b; }
CUVIL_INLINE float absf(float x) { return __builtin_fabsf(x); }
CUVIL_INLINE float copysignf(float magnitude, float sign) {
  return __builtin_copysignf(magnitude, sign);
}

// exp(x): x = n ln2 + r with |r| <= ln2/2, exp(r) by the Cephes polynomial,
// 2^n by building the exponent bits. Inputs are clamped to the finite range,
// so very negative x gives ~1e-38 rather than 0 (harmless for softmax sums).
CUVIL_INLINE float expf(float x) {
  x = minf(maxf(x, -87.3f), 88.7f);
  float n = __builtin_rintf(x * 1.44269504088896341f);
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  float er = p * (r * r) + r + 1.0f;
  float scale = bitCast<float>(int32_t((int32_t(n) + 127) << 23));
  return er * scale;
}

// log(x) for x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)), Cephes
// polynomial for log(m). Non-positive x gives nan (x < 0) or -inf (x == 0).
CUVIL_INLINE float logf(float x) {
  int32_t bits = bitCast<int32_t>(x);
  int32_t exponent = ((bits >> 23) & 0xff) - 126;
  float m = bitCast<float>((bits & 0x007fffff) | 0x3f000000); // in [0.5, 1)
  bool small = m < 0.70710678118654752f;
  exponent -= small ? 1 : 0;
  m = small ? m + m - 1.0f : m - 1.0f;
  float z = m * m;
  float p = 7.0376836292e-2f;
  p = p * m - 1.1514610310e-1f;
  p = p * m + 1.1676998740e-1f;
  p = p * m - 1.2420140846e-1f;
  p = p * m + 1.4249322787e-1f;
  p = p * m - 1.6668057665e-1f;
  p = p * m + 2.0000714765e-1f;
  p = p * m - 2.4999993993e-1f;
  p = p * m + 3.3333331174e-1f;
  float fe = float(exponent);
  float y = m * z * p + fe * -2.12194440e-4f - 0.5f * z;
  y = m + y + fe * 0.693359375f;
  y = x == 0.0f ? -__builtin_inff() : y;
  y = x < 0.0f || x != x ? __builtin_nanf("") : y;
  return x == __builtin_inff() ? x : y;
}

// erf(x): |x| < 1.5: x P(x^2); 1.5 <= |x| < 4: 1 - exp(-x^2) Q(|x| - 2.75);
// beyond, +-1. P and Q are Chebyshev fits (max abs error ~2.5e-7 in float).
CUVIL_INLINE float erff(float x) {
  float ax = absf(x);
  float t = ax * ax;
  float p = 6.397174274752615e-07f;
  p = p * t - 1.1493561032693833e-05f;
  p = p * t + 0.00011367096158210188f;
  p = p * t - 0.000846501556225121f;
  p = p * t + 0.005217956379055977f;
  p = p * t - 0.02686370722949505f;
  p = p * t + 0.11283741146326065f;
  p = p * t - 0.37612634897232056f;
  p = p * t + 1.128379225730896f;
  float u = ax - 2.75f;
  float q = 7.152755188144511e-07f;
  q = q * u - 2.8776696581189753e-06f;
  q = q * u + 8.652964424982201e-06f;
  q = q * u - 3.371989805600606e-05f;
  q = q * u + 0.00013140772352926433f;
  q = q * u - 0.00048283999785780907f;
  q = q * u + 0.001719502848573029f;
  q = q * u - 0.00593416765332222f;
  q = q * u + 0.01975860260426998f;
  q = q * u - 0.06323765218257904f;
  q = q * u + 0.19366209208965302f;
  float tail = 1.0f - expf(-t) * q;
  float magnitude = ax < 1.5f ? ax * p : (ax < 4.0f ? tail : 1.0f);
  return copysignf(magnitude, x);
}

CUVIL_INLINE float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

// tanh(x) = 1 - 2 / (exp(2|x|) + 1) with the sign restored; a short odd
// polynomial near 0 avoids the cancellation there.
CUVIL_INLINE float tanhf(float x) {
  float ax = absf(x);
  float large = 1.0f - 2.0f / (expf(2.0f * ax) + 1.0f);
  float t = ax * ax;
  float small = ax + ax * t * (-0.333333333f + t * (0.133333333f + t * -0.0539682540f));
  return copysignf(ax < 0.0625f ? small : large, x);
}

CUVIL_INLINE float geluErf(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }

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

// Applies a cuvil_unary_op; `op` is a constant after specialisation.
CUVIL_INLINE float applyUnary(int64_t op, float x, float alpha, float beta) {
  switch (op) {
  case CUVIL_UNARY_IDENTITY:
    return x;
  case CUVIL_UNARY_RELU:
    return maxf(x, 0.0f);
  case CUVIL_UNARY_CLIP:
    return minf(maxf(x, alpha), beta);
  case CUVIL_UNARY_SIGMOID:
    return sigmoidf(x);
  case CUVIL_UNARY_TANH:
    return tanhf(x);
  case CUVIL_UNARY_GELU_ERF:
    return geluErf(x);
  case CUVIL_UNARY_SILU:
    return x * sigmoidf(x);
  case CUVIL_UNARY_HARDSWISH:
    return x * minf(maxf(x + 3.0f, 0.0f), 6.0f) * (1.0f / 6.0f);
  case CUVIL_UNARY_LEAKYRELU:
    return x < 0.0f ? alpha * x : x;
  case CUVIL_UNARY_NEG:
    return -x;
  case CUVIL_UNARY_ABS:
    return absf(x);
  case CUVIL_UNARY_SQRT:
    return __builtin_sqrtf(x);
  case CUVIL_UNARY_EXP:
    return expf(x);
  case CUVIL_UNARY_LOG:
    return logf(x);
  case CUVIL_UNARY_ERF:
    return erff(x);
  case CUVIL_UNARY_RECIPROCAL:
    return 1.0f / x;
  case CUVIL_UNARY_FLOOR:
    return __builtin_floorf(x);
  case CUVIL_UNARY_CEIL:
    return __builtin_ceilf(x);
  case CUVIL_UNARY_SQUARE:
    return x * x;
  case CUVIL_UNARY_HARDSIGMOID:
    return maxf(0.0f, minf(1.0f, alpha * x + beta));
  case CUVIL_UNARY_POW:
    return powf(x, alpha);
  default:
    return x;
  }
}

// Splits [0, total) into `tasks` near-equal chunks; task range [begin, end)
// maps to element range [*lo, *hi).
CUVIL_INLINE void taskRange(int64_t total, int64_t tasks, int64_t begin, int64_t end, int64_t *lo,
                            int64_t *hi) {
  *lo = total * begin / tasks;
  *hi = total * end / tasks;
}

} // namespace cuvil::kernels
