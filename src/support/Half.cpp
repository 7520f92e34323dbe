#include "cuvil/support/Half.h"

#include <bit>
#include <cmath>

namespace cuvil {

float halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0) { // zero or subnormal: mantissa * 2^-24
    float magnitude = std::ldexp(float(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) // inf or nan
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t floatToHalf(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  uint32_t absBits = bits & 0x7fffffffu;
  if (absBits >= 0x7f800000u) // inf or nan (keep nan quiet)
    return sign | 0x7c00 | (absBits > 0x7f800000u ? 0x200 : 0);
  if (absBits >= 0x477ff000u) // rounds to >= 65520: overflow to inf
    return sign | 0x7c00;
  if (absBits < 0x38800000u) { // below the smallest normal half: subnormal or zero
    float magnitude = std::bit_cast<float>(absBits);
    return sign | uint16_t(std::nearbyint(magnitude * 16777216.0f)); // ties to even
  }
  // Normal: rebias the exponent and round the 13 dropped mantissa bits to even.
  uint32_t rebased = absBits - (112u << 23);
  uint32_t rounded = rebased + 0xfffu + ((rebased >> 13) & 1u);
  return sign | uint16_t(rounded >> 13);
}

float bfloat16ToFloat(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

uint16_t floatToBfloat16(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // nan stays a quiet nan
    return uint16_t((bits >> 16) | 0x40);
  return uint16_t((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

} // namespace cuvil
