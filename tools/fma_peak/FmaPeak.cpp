// Measures one core's peak FP32 FMA throughput with AVX-512: 16 independent
// chains of vfmadd231ps (enough to cover the FMA latency on two pipes).
// The reference the benchmark notes compare kernel efficiency against.
//   cmake --build build --target fma_peak && build/tools/fma_peak
#include <chrono>
#include <cstdio>
#include <immintrin.h>

int main() {
  constexpr int kChains = 16;
  constexpr long kIterations = 20'000'000;
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm512_set1_ps(0.001f * float(i));
  const __m512 a = _mm512_set1_ps(0.9999f), b = _mm512_set1_ps(0.0001f);
  auto start = std::chrono::steady_clock::now();
  for (long iteration = 0; iteration < kIterations; ++iteration)
    for (int i = 0; i < kChains; ++i)
      acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  float sink = 0;
  for (int i = 0; i < kChains; ++i)
    sink += _mm512_reduce_add_ps(acc[i]);
  double flops = double(kIterations) * kChains * 16 * 2;
  std::printf("%.1f GFLOP/s FP32 FMA peak on one core (checksum %g)\n", flops / seconds / 1e9,
              double(sink));
  return 0;
}
