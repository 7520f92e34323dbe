// The element types, and reading their values: libc only (no C++ runtime
// library), for model libraries as for infer.bin. Their names as text:
// DTypeText.cpp.
#include "DType.h"

#include "cuvil/runtime/ModelABI.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>

namespace cuvil::runtime {
namespace {

// bf16 comes after u16 so that a '<u2' .npy file reads back as u16.
constexpr std::array<DTypeInfo, 14> kDTypes = {{
    {CUVIL_DTYPE_F32, "f32", 4, "f4"},
    {CUVIL_DTYPE_F16, "f16", 2, "f2"},
    {CUVIL_DTYPE_F64, "f64", 8, "f8"},
    {CUVIL_DTYPE_I8, "i8", 1, "i1"},
    {CUVIL_DTYPE_U8, "u8", 1, "u1"},
    {CUVIL_DTYPE_I16, "i16", 2, "i2"},
    {CUVIL_DTYPE_U16, "u16", 2, "u2"},
    {CUVIL_DTYPE_I32, "i32", 4, "i4"},
    {CUVIL_DTYPE_U32, "u32", 4, "u4"},
    {CUVIL_DTYPE_I64, "i64", 8, "i8"},
    {CUVIL_DTYPE_U64, "u64", 8, "u8"},
    {CUVIL_DTYPE_BOOL, "bool", 1, "b1"},
    {CUVIL_DTYPE_BF16, "bf16", 2, "u2"},
    // cuvil_string elements; .npy files hold them as fixed-width UTF-32 ("U<n>").
    {CUVIL_DTYPE_STRING, "string", 16, "U"},
}};

} // namespace

const DTypeInfo *findDType(int32_t code) {
  for (const DTypeInfo &entry : kDTypes)
    if (entry.code == code)
      return &entry;
  return nullptr;
}

const DTypeInfo *findDTypeByNpyType(std::string_view npyType) {
  for (const DTypeInfo &entry : kDTypes)
    if (entry.npyType == npyType)
      return &entry;
  return nullptr;
}

float halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f)
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    float magnitude = std::ldexp(float(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

float bfloat16ToFloat(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

bool isFloatingDType(int32_t code) {
  return code == CUVIL_DTYPE_F32 || code == CUVIL_DTYPE_F64 || code == CUVIL_DTYPE_F16 ||
         code == CUVIL_DTYPE_BF16;
}

double floatingElement(int32_t code, const std::byte *element) {
  auto load = [&]<typename T>(T value) {
    std::memcpy(&value, element, sizeof value);
    return value;
  };
  switch (code) {
  case CUVIL_DTYPE_F64:
    return load(double());
  case CUVIL_DTYPE_F16:
    return halfToFloat(load(uint16_t()));
  case CUVIL_DTYPE_BF16:
    return bfloat16ToFloat(load(uint16_t()));
  default:
    return load(float());
  }
}

} // namespace cuvil::runtime
