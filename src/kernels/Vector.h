// Float vectors for the register-tiled microkernels. A v16 is one zmm
// register on AVX-512 and two ymm registers on AVX2, so the same source
// serves both; tile sizes are chosen per target so that accumulators stay in
// registers. The blocked (NCHWc) kernels are templates over the block B and
// work on Block<B>, the vector of one block's channels.
#pragma once

#include "KernelSupport.h"

namespace cuvil::kernels {

template <int B> struct BlockVector;
template <> struct BlockVector<16> {
  using type = v16;
};
template <> struct BlockVector<8> {
  using type = v8;
};
template <int B> using Block = typename BlockVector<B>::type;

template <typename V> CUVIL_INLINE V loadV(const float *p) {
  V v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}
template <typename V> CUVIL_INLINE void storeV(float *p, V v) {
  __builtin_memcpy(p, &v, sizeof(v));
}

// Weights to fetch into L2 ahead of their use: `count` ranges of `length`
// bytes, `stride` apart from `base`, `linesPerTap` cache lines at each
// issue() from the inner loops, so that the fetches spread over the
// computation (ConvNCHWc.cpp, WinogradNCHWc.cpp).
struct WeightPrefetch {
  const char *base;
  int64_t stride, length, count, linesPerTap;
  int64_t range = 0, offset = 0; // the next line
  inline __attribute__((always_inline)) void issue() {
    for (int64_t i = 0; i < linesPerTap && range < count; ++i) {
      __builtin_prefetch(base + range * stride + offset, 0, 2);
      offset += 64;
      if (offset >= length) {
        offset = 0;
        ++range;
      }
    }
  }
};

CUVIL_INLINE v16 load16(const float *p) { return loadV<v16>(p); }
CUVIL_INLINE void store16(float *p, v16 v) { storeV(p, v); }

} // namespace cuvil::kernels

// Exports a blocked kernel for both block sizes: `cuvil_<stem>_nchw16c_f32`
// and `cuvil_<stem>_nchw8c_f32` call body<16> and body<8> with the same
// parameter list. The lowering picks the name from the tensors' block.
#define CUVIL_BLOCKED_KERNELS(stem, body, params, args)                                            \
  CUVIL_KERNEL void cuvil_##stem##_nchw16c_f32 params { body<16> args; }                           \
  CUVIL_KERNEL void cuvil_##stem##_nchw8c_f32 params { body<8> args; }
