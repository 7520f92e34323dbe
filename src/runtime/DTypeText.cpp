#include "DType.h"

#include <cstdio>

namespace cuvil::runtime {

std::string dtypeName(int32_t code) {
  if (const DTypeInfo *info = findDType(code))
    return std::string(info->name);
  // Name the ONNX types a user is likely to meet so that rejections are clear.
  switch (code) {
  case 0:
    return "undefined";
  case 14:
    return "complex64";
  case 15:
    return "complex128";
  default:
    return "ONNX data type " + std::to_string(code);
  }
}

std::string formatReal(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

} // namespace cuvil::runtime
