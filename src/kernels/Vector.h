// 16-lane float vectors for the register-tiled microkernels. Clang lowers
// them to one zmm register on AVX-512 and to two ymm registers on AVX2, so
// the same source serves both; tile sizes are chosen per target so that
// accumulators stay in registers.
#pragma once

#include "KernelSupport.h"

namespace cuvil::kernels {

CUVIL_INLINE v16 load16(const float *p) {
  v16 v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}
CUVIL_INLINE void store16(float *p, v16 v) { __builtin_memcpy(p, &v, sizeof(v)); }

CUVIL_INLINE v16 applyUnary16(int64_t op, v16 x, float alpha, float beta) {
  return applyUnary<v16>(op, x, alpha, beta);
}

} // namespace cuvil::kernels
