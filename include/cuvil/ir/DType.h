// Element types of Cuvil IR values. One table (DType.cpp) gives each its
// textual name, ONNX TensorProto code and size; everything else derives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cuvil {

// String elements are cuvil_string (ModelABI.h: a pointer and a length);
// constants never hold them.
enum class DType : uint8_t {
  F32,
  F16,
  BF16,
  F64,
  I8,
  U8,
  I16,
  U16,
  I32,
  U32,
  I64,
  U64,
  Bool,
  String
};

std::string_view dtypeName(DType dtype); // "f32", "i64", "bool", ...
size_t dtypeSize(DType dtype);           // bytes per element
int dtypeOnnxCode(DType dtype);          // ONNX TensorProto.DataType value
bool isFloat(DType dtype);               // f32, f16, bf16, f64
bool isSignedInt(DType dtype);
bool isUnsignedInt(DType dtype); // u8..u64 (not bool)
std::optional<DType> dtypeFromName(std::string_view name);
std::optional<DType> dtypeFromOnnxCode(int code);

} // namespace cuvil
