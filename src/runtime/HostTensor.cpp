#include "HostTensor.h"

#include "cuvil/runtime/ModelABI.h"

#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>

namespace cuvil::runtime {

void HostTensor::shrinkTo(std::vector<int64_t> shape) {
  uint64_t elements = checkedNumElements(shape);
  if (elements > numElements_)
    throw std::runtime_error("internal error: output of shape " + formatShape(shape) +
                             " is larger than its buffer (" + formatShape(shape_) + ")");
  byteSize_ = checkedByteSize(dtypeInfo(), shape);
  numElements_ = elements;
  shape_ = std::move(shape);
}

uint64_t checkedNumElements(const std::vector<int64_t> &shape) {
  uint64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      throw std::runtime_error("shape " + formatShape(shape) + " has a negative dimension");
    if (__builtin_mul_overflow(count, uint64_t(dim), &count))
      throw std::runtime_error("shape " + formatShape(shape) + " is too large");
  }
  return count;
}

size_t checkedByteSize(const DTypeInfo &info, const std::vector<int64_t> &shape) {
  size_t bytes;
  // Cap at PTRDIFF_MAX: no object can be larger, and offsets must stay signed.
  if (__builtin_mul_overflow(checkedNumElements(shape), info.size, &bytes) ||
      bytes > size_t(PTRDIFF_MAX))
    throw std::runtime_error("shape " + formatShape(shape) + " is too large");
  return bytes;
}

HostTensor::HostTensor(int32_t dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  const DTypeInfo *info = findDType(dtype);
  if (!info)
    throw std::runtime_error("unsupported data type " + dtypeName(dtype));
  numElements_ = checkedNumElements(shape_);
  byteSize_ = checkedByteSize(*info, shape_);
  // Never hand the model a null pointer, even for an empty tensor.
  size_t allocBytes = byteSize_ ? byteSize_ : kTensorAlignment;
  data_.reset(
      static_cast<std::byte *>(::operator new[](allocBytes, std::align_val_t(kTensorAlignment))));
  std::memset(data_.get(), 0, allocBytes);
}

void HostTensor::AlignedDelete::operator()(std::byte *ptr) const {
  ::operator delete[](ptr, std::align_val_t(kTensorAlignment));
}

std::string formatShape(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += 'x';
    text += std::to_string(shape[i]);
  }
  return text;
}

void HostTensor::reinterpretAs(int32_t dtype) {
  const DTypeInfo *info = findDType(dtype);
  if (!info || info->size != dtypeInfo().size)
    throw std::runtime_error("cannot read " + std::string(dtypeInfo().name) + " data as " +
                             (info ? std::string(info->name) : std::to_string(dtype)));
  dtype_ = dtype;
}

void HostTensor::setStrings(std::vector<std::string> strings) {
  if (dtype_ != CUVIL_DTYPE_STRING || strings.size() != numElements_)
    throw std::runtime_error("internal error: " + std::to_string(strings.size()) +
                             " strings for a tensor of " + std::to_string(numElements_) + " " +
                             std::string(dtypeInfo().name) + " elements");
  strings_ = std::move(strings);
  auto *elements = reinterpret_cast<cuvil_string *>(data_.get());
  for (size_t i = 0; i < strings_.size(); ++i)
    elements[i] = cuvil_string{strings_[i].data(), int64_t(strings_[i].size())};
}

std::string_view HostTensor::stringAt(uint64_t i) const {
  cuvil_string element;
  std::memcpy(&element, data_.get() + i * sizeof(cuvil_string), sizeof element);
  if (!element.data || element.size <= 0)
    return {};
  return {element.data, size_t(element.size)};
}

std::string HostTensor::contents() const {
  if (dtype_ != CUVIL_DTYPE_STRING)
    return std::string(reinterpret_cast<const char *>(data_.get()), byteSize_);
  std::string text;
  for (uint64_t i = 0; i < numElements_; ++i) {
    std::string_view element = stringAt(i);
    text += std::to_string(element.size()) + ':';
    text += element;
  }
  return text;
}

} // namespace cuvil::runtime
