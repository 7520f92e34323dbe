// IEEE binary16 and bfloat16 conversions for constant data on the host.
#pragma once

#include <cstdint>

namespace cuvil {

float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value); // round to nearest even
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBfloat16(float value); // round to nearest even

} // namespace cuvil
