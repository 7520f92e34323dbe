// Measures peak FP32 FMA throughput with AVX-512: 16 independent chains of
// vfmadd231ps per thread (enough to cover the FMA latency on two pipes),
// first on one core alone, then on every core at once. The single-core figure
// is what kernel efficiency is quoted against; the all-core one shows whether
// the cores share FMA units right now (SMT siblings, a busy host), which is
// what multi-threaded benchmarks on a shared VM run into.
//   cmake --build build --target fma_peak && build/tools/fma_peak [--json]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <immintrin.h>
#include <thread>
#include <vector>

namespace {

// GFLOP/s of one thread's FMA chains.
double measureOneThread() {
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
  // Keep the chains live.
  float lanes[16], sink = 0;
  for (int i = 0; i < kChains; ++i) {
    _mm512_storeu_ps(lanes, acc[i]);
    sink += lanes[0];
  }
  asm volatile("" ::"x"(sink));
  return double(kIterations) * kChains * 16 * 2 / seconds / 1e9;
}

// The slowest thread's GFLOP/s when `threads` threads run at once.
double measureConcurrent(unsigned threads) {
  std::vector<double> rates(threads);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&rates, t] { rates[t] = measureOneThread(); });
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
  double single = measureOneThread();
  double concurrent = cores > 1 ? measureConcurrent(cores) : single;
  if (json)
    std::printf("{\"one_core_gflops\": %.1f, \"cores\": %u, \"per_core_all_busy_gflops\": %.1f}\n",
                single, cores, concurrent);
  else
    std::printf("%.1f GFLOP/s FP32 FMA peak on one core; %.1f GFLOP/s per core with all %u "
                "cores busy\n",
                single, concurrent, cores);
  return 0;
}
