// TensorType (dtype + shape of dims, constant or symbolic) and Tensor (a
// constant with data, whose shape is always static).
#pragma once

#include "cuvil/ir/DType.h"
#include "cuvil/ir/Dim.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace cuvil {

using Shape = std::vector<Dim>;

Dim numElements(std::span<const Dim> shape);
std::string shapeToString(std::span<const Dim> shape, char separator = ','); // "1,3,224,224"
// Row-major strides in elements.
std::vector<Dim> contiguousStrides(std::span<const Dim> shape);
// Whether every dim is a constant, and the constants of a static shape.
bool isStatic(std::span<const Dim> shape);
std::vector<int64_t> staticDims(std::span<const Dim> shape);

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;

  int64_t rank() const { return int64_t(shape.size()); }
  bool isStatic() const { return cuvil::isStatic(shape); }
  Dim numElements() const { return cuvil::numElements(shape); }
  Dim byteSize() const { return numElements() * int64_t(dtypeSize(dtype)); }
  // The most bytes it takes, over every symbol value.
  uint64_t maxByteSize() const { return uint64_t(byteSize().max()); }
  std::string str() const; // "f32[1,3,224,224]", "f32[batch,3,224,224]"
  bool operator==(const TensorType &) const = default;
};

// A dense, row-major constant. Copies share the buffer; writing through
// mutableData() first makes the buffer private (copy on write).
class Tensor {
public:
  explicit Tensor(TensorType type); // zero-filled
  Tensor(TensorType type, std::vector<uint8_t> bytes);

  static Tensor fromInt64s(std::span<const int64_t> values, Shape shape, DType dtype = DType::I64);
  static Tensor fromFloats(std::span<const float> values, Shape shape);
  static Tensor scalarF32(float value) { return fromFloats(std::span(&value, 1), {}); }

  const TensorType &type() const { return type_; }
  DType dtype() const { return type_.dtype; }
  const Shape &shape() const { return type_.shape; }
  // Dim i, and all of them (a tensor's shape is static).
  int64_t dim(size_t i) const { return type_.shape[i].constant(); }
  std::vector<int64_t> dims() const { return staticDims(type_.shape); }
  int64_t numElements() const { return type_.numElements().constant(); }
  size_t byteSize() const { return bytes_->size(); }

  const uint8_t *bytes() const { return bytes_->data(); }
  uint8_t *mutableBytes();
  template <typename T> const T *data() const { return reinterpret_cast<const T *>(bytes()); }
  template <typename T> T *mutableData() { return reinterpret_cast<T *>(mutableBytes()); }

  // Element access converting through double / int64 for any dtype; used by the
  // reference evaluators, which favour clarity over speed.
  double getDouble(int64_t index) const;
  int64_t getInt(int64_t index) const;
  void setDouble(int64_t index, double value);
  void setInt(int64_t index, int64_t value);

  std::vector<int64_t> toInt64s() const;
  // Same dtype and shape, converting elements (float->int truncates like a C cast).
  Tensor castTo(DType dtype) const;
  Tensor reshaped(Shape shape) const; // same bytes, new shape
  bool sameContents(const Tensor &other) const;

private:
  TensorType type_;
  std::shared_ptr<std::vector<uint8_t>> bytes_;
};

} // namespace cuvil
