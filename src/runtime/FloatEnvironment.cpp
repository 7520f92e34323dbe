#include "FloatEnvironment.h"

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace cuvil::runtime {

void flushSubnormalsToZero() {
#if defined(__x86_64__) || defined(__i386__)
  constexpr unsigned kFlushToZero = 1u << 15, kDenormalsAreZero = 1u << 6;
  _mm_setcsr(_mm_getcsr() | kFlushToZero | kDenormalsAreZero);
#elif defined(__aarch64__)
  constexpr uint64_t kFlushToZero = uint64_t(1) << 24;
  uint64_t fpcr;
  asm volatile("mrs %0, fpcr" : "=r"(fpcr));
  asm volatile("msr fpcr, %0" : : "r"(fpcr | kFlushToZero));
#endif
}

uint64_t floatControl() {
#if defined(__x86_64__) || defined(__i386__)
  return _mm_getcsr();
#elif defined(__aarch64__)
  uint64_t fpcr;
  asm volatile("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
#else
  return 0;
#endif
}

void setFloatControl(uint64_t control) {
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr(unsigned(control));
#elif defined(__aarch64__)
  asm volatile("msr fpcr, %0" : : "r"(control));
#else
  (void)control;
#endif
}

} // namespace cuvil::runtime
