// One thread's FP32 FMA rate with vectors of type V: independent chains of
// vfmadd231ps, enough of them to cover the FMA latency on two pipes (16 in
// zmm registers, 12 of the 16 ymm registers AVX2 code has). Included by one
// file per instruction set, each compiled for it.
#pragma once

#include <chrono>

namespace cuvil::fma_peak {

template <typename V, typename Fma> double measureChains(Fma fma) {
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

// GFLOP/s of one thread with AVX-512 (FmaAvx512.cpp) and AVX2 (FmaAvx2.cpp).
double measureAvx512();
double measureAvx2();
// G multiply-accumulates per second of one thread with vpdpbusd (u8 x i8,
// AVX512-VNNI) and vdpbf16ps (AVX512_BF16), DotAvx512.cpp.
double measureVnni();
double measureBf16();

} // namespace cuvil::fma_peak
