#ifndef CUVIL_RUNTIME_DTYPE_H
#define CUVIL_RUNTIME_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cuvil::runtime {

/// Facts about one element type the runtime can carry in and out of a model.
struct DTypeInfo {
  int32_t code;             // ONNX TensorProto.DataType, as in enum cuvil_dtype
  std::string_view name;    // short name for messages and --info: "f32", "bool"...
  size_t size;              // bytes per element
  std::string_view npyType; // numpy type string without byte order: "f4", "b1"...
};

/// The entry for an ONNX type code, or nullptr if the runtime does not support it.
const DTypeInfo *findDType(int32_t code);

/// The type numpy stores as npyType (e.g. "f4"), or nullptr. "u2" reads as u16:
/// bf16 is only ever written under that name because numpy has no bfloat16.
const DTypeInfo *findDTypeByNpyType(std::string_view npyType);

/// Short name for messages; also names the ONNX types the runtime rejects.
std::string dtypeName(int32_t code);

/// Widen 16-bit float bit patterns so that values can be printed.
float halfToFloat(uint16_t bits);
float bfloat16ToFloat(uint16_t bits);

/// Whether the type is f32, f64, f16 or bf16.
bool isFloatingDType(int32_t code);
/// The element at `element` of such a type, widened.
double floatingElement(int32_t code, const std::byte *element);
/// A real with the digits that tell an f32 apart ("0.5", "1e-07").
std::string formatReal(double value);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_DTYPE_H
