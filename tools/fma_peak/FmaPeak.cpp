// Measures peak FP32 FMA throughput with AVX-512: 16 independent chains of
// vfmadd231ps per thread (enough to cover the FMA latency on two pipes),
// first on one core alone, then on every core at once. The single-core figure
// is what kernel efficiency is quoted against; the all-core one shows whether
// the cores share FMA units right now (SMT siblings, a busy host), which is
// what multi-threaded benchmarks on a shared VM run into. One core's rate
// with 256-bit (AVX2) FMAs is measured too, for the AVX2 variant.
//   cmake --build build --target fma_peak && build/tools/fma_peak [--json]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <immintrin.h>
#include <thread>
#include <vector>

namespace {

#define CUVIL_FMA_INLINE static inline __attribute__((always_inline))

// The FMA of one vector width: 512 bits (AVX-512) or 256 (AVX2).
CUVIL_FMA_INLINE __m512 fma(__m512 x, __m512 a, __m512 b) { return _mm512_fmadd_ps(x, a, b); }
CUVIL_FMA_INLINE __m256 fma(__m256 x, __m256 a, __m256 b) { return _mm256_fmadd_ps(x, a, b); }

// GFLOP/s of one thread's FMA chains of vector type V: 16 in zmm registers,
// 12 in the 16 ymm registers AVX2 code has.
template <typename V> double measureOneThread() {
  constexpr int kLanes = sizeof(V) / sizeof(float), kChains = kLanes == 16 ? 16 : 12;
  constexpr long kIterations = 20'000'000;
  V acc[kChains];
  for (int i = 0; i < kChains; ++i)
    for (int lane = 0; lane < kLanes; ++lane)
      acc[i][lane] = 0.001f * float(i);
  V a, b;
  for (int lane = 0; lane < kLanes; ++lane) {
    a[lane] = 0.9999f;
    b[lane] = 0.0001f;
  }
  auto start = std::chrono::steady_clock::now();
  for (long iteration = 0; iteration < kIterations; ++iteration)
    for (int i = 0; i < kChains; ++i)
      acc[i] = fma(acc[i], a, b);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Keep the chains live.
  float sink = 0;
  for (int i = 0; i < kChains; ++i)
    sink += acc[i][0];
  asm volatile("" ::"x"(sink));
  return double(kIterations) * kChains * kLanes * 2 / seconds / 1e9;
}

// The slowest thread's GFLOP/s when `threads` threads run at once.
double measureConcurrent(unsigned threads) {
  std::vector<double> rates(threads);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&rates, t] { rates[t] = measureOneThread<__m512>(); });
  for (std::thread &worker : workers)
    worker.join();
  double slowest = rates[0];
  for (double rate : rates)
    slowest = rate < slowest ? rate : slowest;
  return slowest;
}

} // namespace

int main(int argc, char **argv) {
  bool json = argc > 1 && std::strcmp(argv[1], "--json") == 0;
  unsigned cores = std::thread::hardware_concurrency();
  double single = measureOneThread<__m512>();
  double concurrent = cores > 1 ? measureConcurrent(cores) : single;
  double avx2 = measureOneThread<__m256>();
  if (json)
    std::printf("{\"one_core_gflops\": %.1f, \"cores\": %u, \"per_core_all_busy_gflops\": %.1f, "
                "\"one_core_avx2_gflops\": %.1f}\n",
                single, cores, concurrent, avx2);
  else
    std::printf("%.1f GFLOP/s FP32 FMA peak on one core; %.1f GFLOP/s per core with all %u "
                "cores busy; %.1f GFLOP/s on one core with AVX2\n",
                single, concurrent, cores, avx2);
  return 0;
}
