#ifndef CUVIL_RUNTIME_HOSTTENSOR_H
#define CUVIL_RUNTIME_HOSTTENSOR_H

#include "DType.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cuvil::runtime {

// File data (.npy, TensorProto raw_data) is little-endian and is copied into
// tensors as is.
static_assert(std::endian::native == std::endian::little, "the runtime needs a little-endian host");

/// The alignment the model ABI promises for every input and output buffer.
inline constexpr size_t kTensorAlignment = 64;

/// A dense row-major tensor in a 64-byte aligned buffer: an input read from a
/// file or an output the model writes into.
class HostTensor {
public:
  HostTensor() = default;
  /// Allocates a zero-filled buffer. Throws std::runtime_error for an unsupported
  /// dtype, a negative dimension or a size that overflows.
  HostTensor(int32_t dtype, std::vector<int64_t> shape);

  int32_t dtype() const { return dtype_; }
  const DTypeInfo &dtypeInfo() const { return *findDType(dtype_); }
  const std::vector<int64_t> &shape() const { return shape_; }
  uint64_t numElements() const { return numElements_; }
  size_t byteSize() const { return byteSize_; }
  std::byte *data() { return data_.get(); }
  const std::byte *data() const { return data_.get(); }
  /// Gives the tensor a shape of at most as many elements, keeping the
  /// buffer: an output allocated at its largest, once its extent is known.
  void shrinkTo(std::vector<int64_t> shape);
  /// Reads the same bytes as another element type of the same size.
  void reinterpretAs(int32_t dtype);
  /// A string tensor's elements (cuvil_string) set to `strings`, one per
  /// element, whose bytes the tensor keeps.
  void setStrings(std::vector<std::string> strings);
  /// A string tensor's element i.
  std::string_view stringAt(uint64_t i) const;
  /// What the elements hold, comparable between runs: the bytes, or for
  /// strings each one's length and bytes (not where they are).
  std::string contents() const;

private:
  struct AlignedDelete {
    void operator()(std::byte *ptr) const;
  };

  int32_t dtype_ = 0;
  std::vector<int64_t> shape_;
  uint64_t numElements_ = 0;
  size_t byteSize_ = 0;
  std::unique_ptr<std::byte[], AlignedDelete> data_;
  std::vector<std::string> strings_; // the bytes a string input's elements point to
};

/// Element count of shape. Throws for a negative dimension or overflow, so that
/// sizes read from untrusted files can be checked before anything is allocated.
uint64_t checkedNumElements(const std::vector<int64_t> &shape);

/// Byte size of a tensor of info's type and shape, with the same checks.
size_t checkedByteSize(const DTypeInfo &info, const std::vector<int64_t> &shape);

/// "1x3x224x224", or "scalar" for rank 0.
std::string formatShape(const std::vector<int64_t> &shape);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_HOSTTENSOR_H
