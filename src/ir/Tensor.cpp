#include "cuvil/ir/Tensor.h"

#include "cuvil/support/Half.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <fmt/format.h>
#include <limits>

namespace cuvil {

Dim numElements(std::span<const Dim> shape) {
  Dim count = 1;
  for (const Dim &dim : shape)
    count *= dim;
  return count;
}

std::string shapeToString(std::span<const Dim> shape, char separator) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += separator;
    text += shape[i].str();
  }
  return text;
}

std::vector<Dim> contiguousStrides(std::span<const Dim> shape) {
  std::vector<Dim> strides(shape.size(), Dim(1));
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    strides[size_t(i)] = strides[size_t(i) + 1] * shape[size_t(i) + 1];
  return strides;
}

bool isStatic(std::span<const Dim> shape) {
  return std::all_of(shape.begin(), shape.end(), [](const Dim &d) { return d.isConstant(); });
}

std::vector<int64_t> staticDims(std::span<const Dim> shape) {
  std::vector<int64_t> dims;
  for (const Dim &d : shape)
    dims.push_back(d.constant());
  return dims;
}

std::string TensorType::str() const {
  return fmt::format("{}[{}]", dtypeName(dtype), shapeToString(shape));
}

Tensor::Tensor(TensorType type)
    : type_(std::move(type)), bytes_(std::make_shared<std::vector<uint8_t>>(
                                  size_t(type_.byteSize().constant()), uint8_t(0))) {}

Tensor::Tensor(TensorType type, std::vector<uint8_t> bytes)
    : type_(std::move(type)), bytes_(std::make_shared<std::vector<uint8_t>>(std::move(bytes))) {
  assert(int64_t(bytes_->size()) == type_.byteSize().constant());
}

Tensor Tensor::fromInt64s(std::span<const int64_t> values, Shape shape, DType dtype) {
  Tensor tensor(TensorType{dtype, std::move(shape)});
  assert(int64_t(values.size()) == tensor.numElements());
  for (size_t i = 0; i < values.size(); ++i)
    tensor.setInt(int64_t(i), values[i]);
  return tensor;
}

Tensor Tensor::fromFloats(std::span<const float> values, Shape shape) {
  Tensor tensor(TensorType{DType::F32, std::move(shape)});
  assert(int64_t(values.size()) == tensor.numElements());
  if (!values.empty()) // an empty span may carry a null data(): memcpy forbids it
    std::memcpy(tensor.mutableBytes(), values.data(), values.size_bytes());
  return tensor;
}

uint8_t *Tensor::mutableBytes() {
  if (bytes_.use_count() > 1)
    bytes_ = std::make_shared<std::vector<uint8_t>>(*bytes_);
  return bytes_->data();
}

namespace {
template <typename T> T load(const uint8_t *base, int64_t index) {
  T value;
  std::memcpy(&value, base + index * sizeof(T), sizeof(T));
  return value;
}
template <typename T> void store(uint8_t *base, int64_t index, T value) {
  std::memcpy(base + index * sizeof(T), &value, sizeof(T));
}
} // namespace

double Tensor::getDouble(int64_t i) const {
  const uint8_t *p = bytes();
  switch (dtype()) {
  case DType::F32:
    return load<float>(p, i);
  case DType::F64:
    return load<double>(p, i);
  case DType::F16:
    return halfToFloat(load<uint16_t>(p, i));
  case DType::BF16:
    return bfloat16ToFloat(load<uint16_t>(p, i));
  case DType::U64:
    return double(load<uint64_t>(p, i));
  default:
    return double(getInt(i));
  }
}

int64_t Tensor::getInt(int64_t i) const {
  const uint8_t *p = bytes();
  switch (dtype()) {
  case DType::I8:
    return load<int8_t>(p, i);
  case DType::U8:
    return load<uint8_t>(p, i);
  case DType::I16:
    return load<int16_t>(p, i);
  case DType::U16:
    return load<uint16_t>(p, i);
  case DType::I32:
    return load<int32_t>(p, i);
  case DType::U32:
    return load<uint32_t>(p, i);
  case DType::I64:
    return load<int64_t>(p, i);
  case DType::U64:
    return int64_t(load<uint64_t>(p, i));
  case DType::Bool:
    return load<uint8_t>(p, i) != 0;
  default: {
    // Saturated (nan as 0): a float beyond int64 converts with undefined behaviour.
    double value = getDouble(i);
    if (!(value == value))
      return 0;
    if (value >= 9223372036854775807.0)
      return std::numeric_limits<int64_t>::max();
    if (value <= -9223372036854775808.0)
      return std::numeric_limits<int64_t>::min();
    return int64_t(value);
  }
  }
}

void Tensor::setDouble(int64_t i, double value) {
  uint8_t *p = mutableBytes();
  switch (dtype()) {
  case DType::F32:
    return store<float>(p, i, float(value));
  case DType::F64:
    return store<double>(p, i, value);
  case DType::F16:
    return store<uint16_t>(p, i, floatToHalf(float(value)));
  case DType::BF16:
    return store<uint16_t>(p, i, floatToBfloat16(float(value)));
  case DType::Bool:
    return store<uint8_t>(p, i, value != 0.0);
  case DType::U64:
    return store<uint64_t>(p, i, uint64_t(value));
  default:
    return setInt(i, int64_t(value));
  }
}

void Tensor::setInt(int64_t i, int64_t value) {
  uint8_t *p = mutableBytes();
  switch (dtype()) {
  case DType::I8:
    return store<int8_t>(p, i, int8_t(value));
  case DType::U8:
    return store<uint8_t>(p, i, uint8_t(value));
  case DType::I16:
    return store<int16_t>(p, i, int16_t(value));
  case DType::U16:
    return store<uint16_t>(p, i, uint16_t(value));
  case DType::I32:
    return store<int32_t>(p, i, int32_t(value));
  case DType::U32:
    return store<uint32_t>(p, i, uint32_t(value));
  case DType::I64:
    return store<int64_t>(p, i, value);
  case DType::U64:
    return store<uint64_t>(p, i, uint64_t(value));
  case DType::Bool:
    return store<uint8_t>(p, i, value != 0);
  default:
    return setDouble(i, double(value));
  }
}

std::vector<int64_t> Tensor::toInt64s() const {
  std::vector<int64_t> values(static_cast<size_t>(numElements()));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = getInt(int64_t(i));
  return values;
}

Tensor Tensor::castTo(DType target) const {
  if (target == dtype())
    return *this;
  Tensor result(TensorType{target, shape()});
  bool exactInts = !isFloat(dtype()) && !isFloat(target);
  for (int64_t i = 0, n = numElements(); i < n; ++i) {
    if (exactInts)
      result.setInt(i, getInt(i));
    else
      result.setDouble(i, getDouble(i));
  }
  return result;
}

Tensor Tensor::reshaped(Shape shape) const {
  assert(cuvil::numElements(shape) == Dim(numElements()));
  Tensor result = *this;
  result.type_.shape = std::move(shape);
  return result;
}

bool Tensor::sameContents(const Tensor &other) const {
  return type_ == other.type_ && *bytes_ == *other.bytes_;
}

} // namespace cuvil
