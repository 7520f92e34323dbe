// A softmax's row steps, shared by the Softmax kernel and the fused
// attention (whose score rows are its hottest loop after the products):
// the row's largest element, then its exponentials shifted by it.
#pragma once

#include "Vector.h"

namespace cuvil::kernels {

// The row's largest element by largerOf (KernelSupport.h): a NaN in the
// row may be dropped or come out as the max; either way expfNonPositive
// below keeps it, so its row comes out NaN.

CUVIL_INLINE float reduceLarger(v16 v) {
  typedef float v4 __attribute__((ext_vector_type(4)));
  typedef float v2 __attribute__((ext_vector_type(2)));
  const v8 h8 = largerOf(__builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7),
                         __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15));
  const v4 h4 = largerOf(__builtin_shufflevector(h8, h8, 0, 1, 2, 3),
                         __builtin_shufflevector(h8, h8, 4, 5, 6, 7));
  const v2 h2 =
      largerOf(__builtin_shufflevector(h4, h4, 0, 1), __builtin_shufflevector(h4, h4, 2, 3));
  return largerOf(h2[0], h2[1]);
}

// The largest of n elements `stride` apart. A contiguous row goes 64 lanes
// at a time, in four independent chains (a vector max's latency is four
// cycles: one chain would leave three of every four issue slots empty).
CUVIL_INLINE float rowMax(const float *x, int64_t n, int64_t stride) {
  float largest = -__builtin_inff();
  int64_t i = 0;
  if (stride == 1 && n >= 16) {
    v16 chains[4] = {load16(x), load16(x), load16(x), load16(x)};
    for (; i + 64 <= n; i += 64)
#pragma clang loop unroll(full)
      for (int c = 0; c < 4; ++c)
        chains[c] = largerOf(chains[c], load16(x + i + 16 * c));
    for (; i + 16 <= n; i += 16)
      chains[0] = largerOf(chains[0], load16(x + i));
    largest =
        reduceLarger(largerOf(largerOf(chains[0], chains[1]), largerOf(chains[2], chains[3])));
  }
  for (; i < n; ++i)
    largest = largerOf(largest, x[i * stride]);
  return largest;
}

// y[i * stride] = exp(x[i * stride] - shift) for i < n (x may be y); returns
// the sum of the exponentials, reordered so that it vectorises (ONNX
// Runtime sums in lanes too).
CUVIL_INLINE float exponentiateShifted(const float *x, float *y, int64_t n, int64_t stride,
                                       float shift) {
#pragma clang fp reassociate(on)
  float sum = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float e = expfNonPositive(x[i * stride] - shift);
    y[i * stride] = e;
    sum += e;
  }
  return sum;
}

} // namespace cuvil::kernels
