// How kernels that work on element types read and write the types C has no
// arithmetic for: IEEE half and bfloat16 stored as their bits, bool as u8
// 0/1. The codec numbers are the ones the kernel headers' type lists give
// (DataMovement.h's casts, Indexing.h's scatters).
#pragma once

#include "KernelSupport.h"

namespace cuvil::kernels {

enum Codec { kNative = 0, kHalf = 1, kBfloat = 2, kBool = 3 };

// A stored element's value: half and bfloat16 as float, others as stored.
template <int C, typename S> CUVIL_INLINE auto decodeElement(S stored) {
  if constexpr (C == kHalf)
    return float(__builtin_bit_cast(_Float16, stored));
  else if constexpr (C == kBfloat)
    return __builtin_bit_cast(float, uint32_t(stored) << 16);
  else
    return stored;
}

// float to bfloat16 rounding to nearest even; nan stays a (quiet) nan.
CUVIL_INLINE uint16_t toBfloat16(float value) {
  uint32_t bits = __builtin_bit_cast(uint32_t, value);
  if (value != value)
    return uint16_t((bits >> 16) | 0x40);
  return uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

// A value stored as an element of codec C and C type D.
template <int C, typename D, typename V> CUVIL_INLINE D encodeElement(V value) {
  if constexpr (C == kHalf)
    return __builtin_bit_cast(uint16_t, _Float16(float(value)));
  else if constexpr (C == kBfloat)
    return toBfloat16(float(value));
  else if constexpr (C == kBool)
    return D(value != V(0));
  else
    return D(value);
}

} // namespace cuvil::kernels
