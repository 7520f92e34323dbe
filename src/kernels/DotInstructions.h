// The dot-product instructions the integer and bf16 register tiles are
// written with, by their x86 semantics. On x86-64 each is the instruction's
// builtin (LLVM does not form vpmaddwd or vpdpbusd from vector code that
// accumulates); on aarch64 NEON's widening multiplies and pairwise adds
// for the forms the tiles run there (smull, smull2, addp: LLVM's own
// lowering of plain vector code shuffles and spills), and plain vector code
// for the VNNI and bf16 forms, which only x86-64 variants select. The same
// arithmetic, in the same order, on both.
#pragma once

#include "KernelSupport.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#elif !defined(__x86_64__)
#error "DotInstructions.h has no form for this architecture"
#endif

namespace cuvil::kernels {

typedef int8_t i8x32 __attribute__((ext_vector_type(32)));
typedef int16_t i16x16 __attribute__((ext_vector_type(16)));
typedef uint32_t u32x8 __attribute__((ext_vector_type(8)));
typedef uint32_t u32x16 __attribute__((ext_vector_type(16)));
typedef __bf16 bf16x32 __attribute__((ext_vector_type(32)));

#if defined(__x86_64__)
// The target attributes a tile using the AVX512-VNNI or AVX512_BF16 forms
// needs; only variants whose CPU has them select such a tile.
#define CUVIL_VNNI_TARGET __attribute__((target("avx512vnni,avx512vl")))
#define CUVIL_BF16_TARGET __attribute__((target("avx512bf16,avx512f")))
#else
#define CUVIL_VNNI_TARGET
#define CUVIL_BF16_TARGET
#endif

#if defined(__aarch64__)
// The 128-bit halves of 256-bit vectors, and back.
CUVIL_INLINE int8x16_t half8(i8x32 v, bool high) {
  return __builtin_bit_cast(
      int8x16_t,
      high ? __builtin_shufflevector(v, v, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
                                     30, 31)
           : __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}
CUVIL_INLINE int16x8_t half16(i16x16 v, bool high) {
  return __builtin_bit_cast(int16x8_t,
                            high ? __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15)
                                 : __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7));
}
CUVIL_INLINE u32x8 joinHalves(int32x4_t low, int32x4_t high) {
  typedef uint32_t u32x4 __attribute__((ext_vector_type(4)));
  const u32x4 l = __builtin_bit_cast(u32x4, low), h = __builtin_bit_cast(u32x4, high);
  return __builtin_shufflevector(l, h, 0, 1, 2, 3, 4, 5, 6, 7);
}
// Lane i of the result: a[2i] * b[2i] + a[2i + 1] * b[2i + 1], for 8 lanes.
CUVIL_INLINE int32x4_t pairProducts8(int16x8_t a, int16x8_t b) {
  return vpaddq_s32(vmull_s16(vget_low_s16(a), vget_low_s16(b)), vmull_high_s16(a, b));
}
#endif

#if defined(__aarch64__)
// Lanes 2i (Odd = false) or 2i + 1 (Odd = true) of a 16-lane vector.
template <bool Odd, typename V> CUVIL_INLINE auto pairHalf(V v) {
  return __builtin_shufflevector(v, v, 0 + Odd, 2 + Odd, 4 + Odd, 6 + Odd, 8 + Odd, 10 + Odd,
                                 12 + Odd, 14 + Odd);
}
#endif

// vpmaddwd: lane i = a[2i] * b[2i] + a[2i + 1] * b[2i + 1] (wrapping).
CUVIL_INLINE u32x8 pairProducts(i16x16 a, i16x16 b) {
#if defined(__x86_64__)
  return __builtin_bit_cast(u32x8, __builtin_ia32_pmaddwd256(a, b));
#elif defined(__aarch64__)
  return joinHalves(pairProducts8(half16(a, false), half16(b, false)),
                    pairProducts8(half16(a, true), half16(b, true)));
#endif
}

// vpmaddwd by ones: lane i = a[2i] + a[2i + 1].
CUVIL_INLINE u32x8 pairSums(i16x16 a) {
#if defined(__x86_64__)
  return pairProducts(a, i16x16(1));
#elif defined(__aarch64__)
  return joinHalves(vpaddlq_s16(half16(a, false)), vpaddlq_s16(half16(a, true)));
#endif
}

// vpmaddubsw: lane i = a[2i] * b[2i] + a[2i + 1] * b[2i + 1], with a's
// bytes unsigned and b's signed, saturated to i16.
CUVIL_INLINE i16x16 saturatedBytePairProducts(i8x32 unsignedBytes, i8x32 signedBytes) {
#if defined(__x86_64__)
  return __builtin_ia32_pmaddubsw256(unsignedBytes, signedBytes);
#elif defined(__aarch64__)
  // Each u8 x i8 product fits i16 (255 * -128 = -32640); the pair sums
  // saturate as vpmaddubsw's do.
  auto sixteen = [](int8x16_t u8, int8x16_t s8) {
    const uint8x16_t u = vreinterpretq_u8_s8(u8);
    const int16x8_t low =
        vmulq_s16(vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(u))), vmovl_s8(vget_low_s8(s8)));
    const int16x8_t high = vmulq_s16(vreinterpretq_s16_u16(vmovl_high_u8(u)), vmovl_high_s8(s8));
    return vqaddq_s16(vuzp1q_s16(low, high), vuzp2q_s16(low, high));
  };
  typedef int16_t i16x8 __attribute__((ext_vector_type(8)));
  const i16x8 low =
      __builtin_bit_cast(i16x8, sixteen(half8(unsignedBytes, false), half8(signedBytes, false)));
  const i16x8 high =
      __builtin_bit_cast(i16x8, sixteen(half8(unsignedBytes, true), half8(signedBytes, true)));
  return __builtin_shufflevector(low, high, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#endif
}

// vpdpbusd: lane i = acc[i] + the four products of the byte quads
// unsignedQuads[i] x signedQuads[i] (wrapping, no saturation).
CUVIL_VNNI_TARGET CUVIL_INLINE i32x8 accumulateQuadProducts(i32x8 acc, i32x8 unsignedQuads,
                                                            i32x8 signedQuads) {
#if defined(__x86_64__)
  return __builtin_ia32_vpdpbusd256(acc, unsignedQuads, signedQuads);
#else
  typedef uint8_t u8x32 __attribute__((ext_vector_type(32)));
  typedef int32_t i32x32 __attribute__((ext_vector_type(32)));
  const i32x32 products =
      __builtin_convertvector(__builtin_bit_cast(u8x32, unsignedQuads), i32x32) *
      __builtin_convertvector(__builtin_bit_cast(i8x32, signedQuads), i32x32);
  const i32x16 pairs = __builtin_shufflevector(products, products, 0, 2, 4, 6, 8, 10, 12, 14, 16,
                                               18, 20, 22, 24, 26, 28, 30) +
                       __builtin_shufflevector(products, products, 1, 3, 5, 7, 9, 11, 13, 15, 17,
                                               19, 21, 23, 25, 27, 29, 31);
  return acc + pairHalf<false>(pairs) + pairHalf<true>(pairs);
#endif
}

// The same on 512-bit vectors: sixteen lanes.
CUVIL_VNNI_TARGET CUVIL_INLINE i32x16 accumulateQuadProducts(i32x16 acc, i32x16 unsignedQuads,
                                                             i32x16 signedQuads) {
#if defined(__x86_64__)
  return __builtin_ia32_vpdpbusd512(acc, unsignedQuads, signedQuads);
#else
  auto half = [](i32x16 v, bool high) {
    return high ? __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15)
                : __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7);
  };
  const i32x8 low = accumulateQuadProducts(half(acc, false), half(unsignedQuads, false),
                                           half(signedQuads, false));
  const i32x8 high =
      accumulateQuadProducts(half(acc, true), half(unsignedQuads, true), half(signedQuads, true));
  return __builtin_shufflevector(low, high, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#endif
}

// vcvtne2ps2bf16: 32 floats (low then high) rounded to nearest even bf16.
CUVIL_BF16_TARGET CUVIL_INLINE bf16x32 roundToBf16(v16 high, v16 low) {
#if defined(__x86_64__)
  return __builtin_ia32_cvtne2ps2bf16_512(high, low);
#else
  typedef float v32 __attribute__((ext_vector_type(32)));
  const v32 all =
      __builtin_shufflevector(low, high, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                              17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
  return __builtin_convertvector(all, bf16x32);
#endif
}

// vdpbf16ps: lane i = (acc[i] + a[2i + 1] * b[2i + 1]) + a[2i] * b[2i],
// the products exact and summed in f32.
CUVIL_BF16_TARGET CUVIL_INLINE v16 accumulateBf16PairProducts(v16 acc, bf16x32 a, bf16x32 b) {
#if defined(__x86_64__)
  return __builtin_ia32_dpbf16ps_512(acc, a, b);
#else
  typedef float v32 __attribute__((ext_vector_type(32)));
  const v32 products = __builtin_convertvector(a, v32) * __builtin_convertvector(b, v32);
  const v16 even = __builtin_shufflevector(products, products, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                           20, 22, 24, 26, 28, 30);
  const v16 odd = __builtin_shufflevector(products, products, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21,
                                          23, 25, 27, 29, 31);
  return (acc + odd) + even; // the order vdpbf16ps adds in
#endif
}

} // namespace cuvil::kernels
