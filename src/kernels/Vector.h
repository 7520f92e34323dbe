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

// A 16 x 16 block transposed in registers, rows[i][j] <- rows[j][i]: four
// butterfly stages, stage D trading blocks of D elements between rows i and
// i + D (64 two-source shuffles: unpacks and lane shuffles on AVX-512),
// where a scalar copy takes a load and a store per element.
template <int D> CUVIL_INLINE void tradeBlocks(v16 (&rows)[16]) {
#pragma clang loop unroll(full)
  for (int i = 0; i < 16; ++i) {
    if (i & D)
      continue;
    const v16 a = rows[i], b = rows[i + D];
    if constexpr (D == 8) {
      rows[i] =
          __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
      rows[i + D] = __builtin_shufflevector(a, b, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28,
                                            29, 30, 31);
    } else if constexpr (D == 4) {
      rows[i] =
          __builtin_shufflevector(a, b, 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
      rows[i + D] =
          __builtin_shufflevector(a, b, 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
    } else if constexpr (D == 2) {
      rows[i] =
          __builtin_shufflevector(a, b, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29);
      rows[i + D] =
          __builtin_shufflevector(a, b, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
    } else {
      rows[i] =
          __builtin_shufflevector(a, b, 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
      rows[i + D] =
          __builtin_shufflevector(a, b, 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
    }
  }
}

CUVIL_INLINE void transpose16x16(v16 (&rows)[16]) {
  tradeBlocks<8>(rows);
  tradeBlocks<4>(rows);
  tradeBlocks<2>(rows);
  tradeBlocks<1>(rows);
}

} // namespace cuvil::kernels

// Exports a blocked kernel for both block sizes: `cuvil_<stem>_nchw16c_f32`
// and `cuvil_<stem>_nchw8c_f32` call body<16> and body<8> with the same
// parameter list. The lowering picks the name from the tensors' block.
#define CUVIL_BLOCKED_KERNELS(stem, body, params, args)                                            \
  CUVIL_KERNEL void cuvil_##stem##_nchw16c_f32 params { body<16> args; }                           \
  CUVIL_KERNEL void cuvil_##stem##_nchw8c_f32 params { body<8> args; }
