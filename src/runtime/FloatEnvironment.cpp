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

} // namespace cuvil::runtime
