// Circular and hyperbolic functions and their inverses for the elementwise
// kernels, on float and vectors alike (selects, not branches), built from
// Cephes' single-precision polynomials and expf/logf. Included by
// KernelSupport.h after the functions they build on.
#pragma once

namespace cuvil::kernels {

// sin(r) and cos(r) for |r| <= pi/4.
template <typename T> CUVIL_INLINE T sinKernel(T r) {
  T z = r * r;
  T p = T(-1.9515295891e-4f);
  p = p * z + 8.3321608736e-3f;
  p = p * z - 1.6666654611e-1f;
  return r + r * z * p;
}
template <typename T> CUVIL_INLINE T cosKernel(T r) {
  T z = r * r;
  T p = T(2.443315711809948e-5f);
  p = p * z - 1.388731625493765e-3f;
  p = p * z + 4.166664568298827e-2f;
  return 1.0f - 0.5f * z + z * z * p;
}

// x = q pi/2 + r with |r| <= pi/4 (pi/2 in three parts, so r stays exact
// for |x| up to ~1e4 and reasonable well beyond); the quadrant q mod 4.
template <typename T> struct QuadrantReduction {
  T r;
  typename IntOf<T>::type quadrant;
};
template <typename T> CUVIL_INLINE QuadrantReduction<T> reduceQuadrant(T x) {
  using I = typename IntOf<T>::type;
  T q = __builtin_elementwise_roundeven(x * 0.63661977236758134f);
  T r = x - q * 1.5703125f;
  r = r - q * 4.837512969970703125e-4f;
  r = r - q * 7.54978995489188216e-8f;
  return {r, I(convert<I>(q) & 3)};
}

// sin(q pi/2 + r) is sin r, cos r, -sin r, -cos r for q = 0..3; cos(x) is
// sin(x + pi/2), the quadrant one further.
template <typename T> CUVIL_INLINE T sinOfQuadrant(T r, typename IntOf<T>::type quadrant) {
  T value = select((quadrant & 1) != 0, cosKernel(r), sinKernel(r));
  return select((quadrant & 2) != 0, -value, value);
}
template <typename T> CUVIL_INLINE T sinf(T x) {
  QuadrantReduction<T> reduced = reduceQuadrant(x);
  return sinOfQuadrant(reduced.r, reduced.quadrant);
}
template <typename T> CUVIL_INLINE T cosf(T x) {
  QuadrantReduction<T> reduced = reduceQuadrant(x);
  return sinOfQuadrant(reduced.r, reduced.quadrant + 1);
}
// tan r = sin r / cos r; one quadrant on, tan = -cos r / sin r.
template <typename T> CUVIL_INLINE T tanf(T x) {
  QuadrantReduction<T> reduced = reduceQuadrant(x);
  T s = sinKernel(reduced.r), c = cosKernel(reduced.r);
  return select((reduced.quadrant & 1) != 0, -c / s, s / c);
}

// atan(x): |x| reduced to [0, tan(pi/8)] by atan x = pi/2 + atan(-1/x)
// (|x| > tan(3pi/8)) or pi/4 + atan((x-1)/(x+1)) (|x| > tan(pi/8)).
template <typename T> CUVIL_INLINE T atanf(T x) {
  T a = absf(x);
  auto big = a > 2.414213562373095f;
  auto middle = a > 0.4142135623730950f;
  T base = select(big, T(1.5707963267948966f), select(middle, T(0.7853981633974483f), T(0.0f)));
  T t = select(big, -1.0f / a, select(middle, (a - 1.0f) / (a + 1.0f), a));
  T z = t * t;
  T p = T(8.05374449538e-2f);
  p = p * z - 1.38776856032e-1f;
  p = p * z + 1.99777106478e-1f;
  p = p * z - 3.33329491539e-1f;
  return copysignf(base + t + t * z * p, x);
}

// asin on [0, 1/2]: s + s^3 P(s^2).
template <typename T> CUVIL_INLINE T asinKernel(T s) {
  T z = s * s;
  T p = T(4.2163199048e-2f);
  p = p * z + 2.4181311049e-2f;
  p = p * z + 4.5470025998e-2f;
  p = p * z + 7.4953002686e-2f;
  p = p * z + 1.6666752422e-1f;
  return s + s * z * p;
}
// Beyond 1/2, asin a = pi/2 - 2 asin(sqrt((1 - a) / 2)); |x| > 1 is nan.
template <typename T> CUVIL_INLINE T asinf(T x) {
  T a = absf(x);
  T halfComplement = asinKernel(__builtin_elementwise_sqrt(0.5f * (1.0f - a)));
  T value = select(a > 0.5f, 1.5707963267948966f - 2.0f * halfComplement, asinKernel(a));
  return select(a > 1.0f, T(__builtin_nanf("")), copysignf(value, x));
}
// acos x = 2 asin(sqrt((1 - x) / 2)) for x > 1/2 (no cancellation near 1),
// pi - the same of -x below -1/2, pi/2 - asin x between.
template <typename T> CUVIL_INLINE T acosf(T x) {
  T a = absf(x);
  T half = 2.0f * asinKernel(__builtin_elementwise_sqrt(0.5f * (1.0f - a)));
  T value = select(a > 0.5f, select(x > 0.0f, half, 3.14159265358979f - half),
                   1.5707963267948966f - asinKernel(x));
  return select(a > 1.0f, T(__builtin_nanf("")), value);
}

// log(1 + u), exact for small u: the rounding of w = 1 + u is undone by
// u / (w - 1) (Goldberg's trick).
template <typename T> CUVIL_INLINE T log1pf(T u) {
  T w = 1.0f + u;
  T ratio = u / select(w == 1.0f, T(1.0f), w - 1.0f);
  return select(w == 1.0f, u, logf(w) * ratio);
}

// sinh: the Taylor series to x^9 below 1 (no cancellation), else from exp.
template <typename T> CUVIL_INLINE T sinhf(T x) {
  T z = x * x;
  T series =
      x +
      x * z * (1.0f / 6.0f + z * (1.0f / 120.0f + z * (1.0f / 5040.0f + z * (1.0f / 362880.0f))));
  T e = expf(absf(x));
  T large = copysignf(0.5f * (e - 1.0f / e), x);
  return select(absf(x) < 1.0f, series, large);
}
template <typename T> CUVIL_INLINE T coshf(T x) {
  T e = expf(absf(x));
  return 0.5f * (e + 1.0f / e);
}
// asinh a = log1p(a + a^2 / (1 + sqrt(1 + a^2))); log(2a) once a^2 would
// overflow.
template <typename T> CUVIL_INLINE T asinhf(T x) {
  T a = absf(x);
  T z = a * a;
  T moderate = log1pf(a + z / (1.0f + __builtin_elementwise_sqrt(1.0f + z)));
  T huge = logf(a) + 0.69314718055994531f;
  return copysignf(select(a > 1e18f, huge, moderate), x);
}
// acosh x = log1p(t + sqrt(2t + t^2)), t = x - 1 (exact near 1); nan below 1.
template <typename T> CUVIL_INLINE T acoshf(T x) {
  T t = x - 1.0f;
  T moderate = log1pf(t + __builtin_elementwise_sqrt(2.0f * t + t * t));
  T huge = logf(x) + 0.69314718055994531f;
  return select(x < 1.0f, T(__builtin_nanf("")), select(x > 1e18f, huge, moderate));
}
// atanh x = log1p(2x / (1 - x)) / 2; +-inf at +-1, nan beyond.
template <typename T> CUVIL_INLINE T atanhf(T x) {
  T a = absf(x);
  T value = 0.5f * log1pf(2.0f * a / (1.0f - a));
  value = select(a == 1.0f, T(__builtin_inff()), value);
  return select(a > 1.0f, T(__builtin_nanf("")), copysignf(value, x));
}

} // namespace cuvil::kernels
