// Compiled with -mavx512f: called only where the CPU has it.
#include "FmaChains.h"

#include <immintrin.h>

double cuvil::fma_peak::measureAvx512() {
  return measureChains<__m512>(
      [](__m512 x, __m512 a, __m512 b) { return _mm512_fmadd_ps(x, a, b); });
}
