#include "cuvil/ir/DType.h"

#include <array>

namespace cuvil {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  int onnxCode;
  size_t size;
};

// Order matches the enum so lookups index directly.
constexpr std::array<DTypeInfo, 14> kDTypes = {{
    {DType::F32, "f32", 1, 4},
    {DType::F16, "f16", 10, 2},
    {DType::BF16, "bf16", 16, 2},
    {DType::F64, "f64", 11, 8},
    {DType::I8, "i8", 3, 1},
    {DType::U8, "u8", 2, 1},
    {DType::I16, "i16", 5, 2},
    {DType::U16, "u16", 4, 2},
    {DType::I32, "i32", 6, 4},
    {DType::U32, "u32", 12, 4},
    {DType::I64, "i64", 7, 8},
    {DType::U64, "u64", 13, 8},
    {DType::Bool, "bool", 9, 1},
    {DType::String, "string", 8, 16},
}};

const DTypeInfo &info(DType dtype) { return kDTypes[static_cast<size_t>(dtype)]; }

} // namespace

std::string_view dtypeName(DType dtype) { return info(dtype).name; }
size_t dtypeSize(DType dtype) { return info(dtype).size; }
int dtypeOnnxCode(DType dtype) { return info(dtype).onnxCode; }

bool isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F64;
}
bool isSignedInt(DType dtype) {
  return dtype == DType::I8 || dtype == DType::I16 || dtype == DType::I32 || dtype == DType::I64;
}
bool isUnsignedInt(DType dtype) {
  return dtype == DType::U8 || dtype == DType::U16 || dtype == DType::U32 || dtype == DType::U64;
}

std::optional<DType> dtypeFromName(std::string_view name) {
  for (const DTypeInfo &entry : kDTypes)
    if (entry.name == name)
      return entry.dtype;
  return std::nullopt;
}

std::optional<DType> dtypeFromOnnxCode(int code) {
  for (const DTypeInfo &entry : kDTypes)
    if (entry.onnxCode == code)
      return entry.dtype;
  return std::nullopt;
}

} // namespace cuvil
