// Compiled with -mavx2 -mfma.
#include "FmaChains.h"

#include <immintrin.h>

double cuvil::fma_peak::measureAvx2() {
  return measureChains<__m256>(
      [](__m256 x, __m256 a, __m256 b) { return _mm256_fmadd_ps(x, a, b); });
}
