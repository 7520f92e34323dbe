// Compiled with AVX512-VNNI and AVX512_BF16: called only where the CPU has
// them. The rates the integer and bf16 kernels are quoted against: 16
// independent chains, as the FP32 ones.
#include "FmaChains.h"

#include <immintrin.h>

namespace {

constexpr int kChains = 16;
constexpr long kIterations = 20'000'000;

// Multiply-accumulates per second (G) of `step` on kChains accumulators of
// type V, each step doing `macs` of them per accumulator.
template <typename V, typename Step> double measureDots(V initial, Step step, int macs) {
  V acc[kChains];
  for (V &chain : acc)
    chain = initial;
  auto start = std::chrono::steady_clock::now();
  for (long iteration = 0; iteration < kIterations; ++iteration)
    for (V &chain : acc)
      chain = step(chain);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (V &chain : acc)
    asm volatile("" ::"v"(chain));
  return double(kIterations) * kChains * macs / seconds / 1e9;
}

} // namespace

double cuvil::fma_peak::measureVnni() {
  const __m512i bytes = _mm512_set1_epi32(0x01020304);
  // vpdpbusd on zmm, as the integer tiles use it: 16 lanes x 4 products.
  return measureDots(
      _mm512_setzero_si512(), [&](__m512i x) { return _mm512_dpbusd_epi32(x, bytes, bytes); }, 64);
}

double cuvil::fma_peak::measureBf16() {
  const __m512bh pairs = (__m512bh)_mm512_set1_epi32(0x3f803f80);
  // vdpbf16ps on zmm: 16 lanes x 2 products.
  return measureDots(
      _mm512_setzero_ps(), [&](__m512 x) { return _mm512_dpbf16_ps(x, pairs, pairs); }, 32);
}
