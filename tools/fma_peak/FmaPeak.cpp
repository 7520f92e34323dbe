// Measures the peak FP32 FMA throughput of the widest vectors this CPU has
// (AVX-512, else AVX2), first on one core alone, then on every core at once.
// The single-core figure is what kernel efficiency is quoted against; the
// all-core one shows whether the cores share FMA units right now (SMT
// siblings, a busy host), which is what multi-threaded benchmarks on a shared
// VM run into. One core's rate with 256-bit (AVX2) FMAs is measured too, for
// the AVX2 variant, and the 8-bit and bf16 multiply-accumulate rates where
// the CPU has VNNI and AVX512_BF16 (what the integer and bf16 kernels reach
// for).
//   cmake --build build --target fma_peak && build/tools/fma_peak [--json]
#include "FmaChains.h"

#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

using namespace cuvil::fma_peak;

namespace {

// The slowest thread's GFLOP/s when `threads` threads run `measure` at once.
double measureConcurrent(unsigned threads, double (*measure)()) {
  std::vector<double> rates(threads);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&rates, t, measure] { rates[t] = measure(); });
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
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    std::fprintf(stderr, "fma_peak: this CPU has neither AVX-512 nor AVX2 with FMA\n");
    return 1;
  }
  bool avx512 = __builtin_cpu_supports("avx512f");
  double (*widest)() = avx512 ? measureAvx512 : measureAvx2;
  const char *isa = avx512 ? "avx512" : "avx2";
  unsigned cores = std::thread::hardware_concurrency();
  double single = widest();
  double concurrent = cores > 1 ? measureConcurrent(cores, widest) : single;
  double avx2 = avx512 ? measureAvx2() : single;
  bool vnni = avx512 && __builtin_cpu_supports("avx512vnni");
  bool bf16 = vnni && __builtin_cpu_supports("avx512bf16");
  double int8Macs = vnni ? measureVnni() : 0, bf16Macs = bf16 ? measureBf16() : 0;
  if (json)
    std::printf("{\"isa\": \"%s\", \"one_core_gflops\": %.1f, \"cores\": %u, "
                "\"per_core_all_busy_gflops\": %.1f, \"one_core_avx2_gflops\": %.1f, "
                "\"one_core_vnni_gmacs\": %.1f, \"one_core_bf16_gmacs\": %.1f}\n",
                isa, single, cores, concurrent, avx2, int8Macs, bf16Macs);
  else {
    std::printf("%.1f GFLOP/s FP32 FMA peak on one core (%s); %.1f GFLOP/s per core with all %u "
                "cores busy; %.1f GFLOP/s on one core with AVX2\n",
                single, isa, concurrent, cores, avx2);
    if (vnni)
      std::printf("%.1f G 8-bit multiply-accumulates/s on one core (vpdpbusd, zmm)\n", int8Macs);
    if (bf16)
      std::printf("%.1f G bf16 multiply-accumulates/s on one core (vdpbf16ps)\n", bf16Macs);
  }
  return 0;
}
