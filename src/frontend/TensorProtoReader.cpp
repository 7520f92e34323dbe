#include "TensorProtoReader.h"

#include <charconv>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <optional>

namespace cuvil {
namespace {

namespace fs = std::filesystem;

// A non-negative decimal of an external_data entry.
Expected<uint64_t> externalNumber(const std::string &key, const std::string &text) {
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty())
    return Status::error(
        fmt::format("external data {} '{}' is not a non-negative integer", key, text));
  return value;
}

// The `expected` bytes of an external tensor, after checking that the
// location stays inside the model's directory (symlinks resolved) and that
// the file holds them, before anything is allocated.
Expected<std::vector<uint8_t>> readExternalData(const onnx::TensorProto &proto,
                                                const std::string &modelDir, uint64_t expected) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const auto &entry : proto.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      Expected<uint64_t> value = externalNumber(entry.key(), entry.value());
      CUVIL_TRY(value.status());
      (entry.key() == "offset" ? offset : length.emplace()) = *value;
    }
  }
  if (location.empty())
    return Status::error("external data without a location");
  std::error_code error;
  fs::path base = fs::weakly_canonical(fs::path(modelDir.empty() ? "." : modelDir), error);
  fs::path file = fs::weakly_canonical(base / location, error);
  auto relative = file.lexically_relative(base);
  if (error || fs::path(location).is_absolute() || relative.empty() || *relative.begin() == "..")
    return Status::error(
        fmt::format("external data '{}' is outside the model's directory", location));
  if (length && *length != expected)
    return Status::error(fmt::format("external data '{}': length {} does not match the {} bytes "
                                     "of the tensor's type",
                                     location, *length, expected));
  uint64_t size = fs::is_regular_file(file, error) ? fs::file_size(file, error) : 0;
  if (error || !fs::is_regular_file(file))
    return Status::error(fmt::format("cannot open external data file '{}'", location));
  if (offset > size || size - offset < expected)
    return Status::error(fmt::format("external data file '{}' has {} bytes; the tensor needs {} "
                                     "from offset {}",
                                     location, size, expected, offset));
  std::ifstream in(file, std::ios::binary);
  in.seekg(std::streamoff(offset));
  std::vector<uint8_t> bytes(expected);
  in.read(reinterpret_cast<char *>(bytes.data()), std::streamsize(expected));
  if (!in || uint64_t(in.gcount()) != expected)
    return Status::error(fmt::format("cannot read external data file '{}'", location));
  return bytes;
}

// How many values the typed field a tensor of `dtype` stores its data in
// holds.
size_t typedValueCount(const onnx::TensorProto &proto, DType dtype) {
  switch (dtype) {
  case DType::F32:
    return size_t(proto.float_data_size());
  case DType::F64:
    return size_t(proto.double_data_size());
  case DType::I64:
    return size_t(proto.int64_data_size());
  case DType::U32:
  case DType::U64:
    return size_t(proto.uint64_data_size());
  default:
    return size_t(proto.int32_data_size());
  }
}

template <typename Field, typename Store>
Status copyTyped(const Field &field, Tensor &tensor, Store store) {
  if (int64_t(field.size()) != tensor.numElements())
    return Status::error(
        fmt::format("has {} values for {} elements", field.size(), tensor.numElements()));
  for (int64_t i = 0; i < tensor.numElements(); ++i)
    store(tensor, i, field[int(i)]);
  return Status::success();
}

} // namespace

Expected<StringTensor> readStringTensorProto(const onnx::TensorProto &proto) {
  StringTensor tensor;
  uint64_t elements = 1;
  for (int64_t dim : proto.dims()) {
    // Each string costs the file at least a byte, so a count beyond its
    // size is an error before anything is allocated.
    if (dim < 0 || (dim != 0 && elements > uint64_t(proto.string_data_size()) / uint64_t(dim)))
      return Status::error(fmt::format("tensor '{}': dims [{}] do not match its {} strings",
                                       proto.name(), fmt::join(proto.dims(), ","),
                                       proto.string_data_size()));
    elements *= uint64_t(dim);
    tensor.shape.push_back(dim);
  }
  if (proto.data_location() == onnx::TensorProto::EXTERNAL || proto.has_raw_data() ||
      elements != uint64_t(proto.string_data_size()))
    return Status::error(
        fmt::format("tensor '{}' must hold its {} strings in string_data", proto.name(), elements));
  tensor.strings.assign(proto.string_data().begin(), proto.string_data().end());
  return tensor;
}

Expected<Tensor> readTensorProto(const onnx::TensorProto &proto, const std::string &modelDir) {
  std::optional<DType> dtype = dtypeFromOnnxCode(proto.data_type());
  if (!dtype)
    return Status::error(fmt::format("tensor '{}' has unsupported element type {}", proto.name(),
                                     proto.data_type()));
  if (*dtype == DType::String) // made at run time from their bytes (readStringTensorProto)
    return Status::error(fmt::format("tensor '{}' holds strings, which cuvil takes here only "
                                     "as a graph input, an initializer or a Constant",
                                     proto.name()));
  // Element count and bytes, checked for overflow before anything is
  // allocated; every data source is then checked against them.
  Shape shape;
  uint64_t elements = 1;
  for (int64_t dim : proto.dims()) {
    if (dim < 0)
      return Status::error(
          fmt::format("tensor '{}' has a negative dimension {}", proto.name(), dim));
    if (dim != 0 && elements > (uint64_t(1) << 59) / uint64_t(dim))
      return Status::error(fmt::format("tensor '{}': dims [{}] give more elements than fit in 64 "
                                       "bits",
                                       proto.name(), fmt::join(proto.dims(), ",")));
    elements *= uint64_t(dim);
    shape.push_back(dim);
  }
  uint64_t bytes = elements * dtypeSize(*dtype);
  auto context = [&](Status status) {
    return status.withContext(fmt::format("tensor '{}'", proto.name()));
  };
  bool external = proto.data_location() == onnx::TensorProto::EXTERNAL;
  if (!external && proto.has_raw_data() && proto.raw_data().size() != bytes)
    return context(Status::error(
        fmt::format("raw_data has {} bytes, expected {}", proto.raw_data().size(), bytes)));
  if (!external && !proto.has_raw_data() && typedValueCount(proto, *dtype) != elements)
    return context(Status::error(
        fmt::format("has {} values for {} elements", typedValueCount(proto, *dtype), elements)));
  if (external && proto.has_raw_data())
    return context(Status::error("has both raw_data and external data"));
  if (external) {
    Expected<std::vector<uint8_t>> data = readExternalData(proto, modelDir, bytes);
    if (!data)
      return context(data.status());
    return Tensor(TensorType{*dtype, shape}, data.take());
  }
  Tensor tensor(TensorType{*dtype, shape});

  if (proto.has_raw_data()) {
    if (bytes != 0) // an empty tensor's buffer may be null
      std::memcpy(tensor.mutableBytes(), proto.raw_data().data(), bytes);
    return tensor;
  }
  auto storeDouble = [](Tensor &t, int64_t i, double v) { t.setDouble(i, v); };
  auto storeInt = [](Tensor &t, int64_t i, int64_t v) { t.setInt(i, v); };
  // 16-bit floats travel as their bit patterns in int32_data.
  auto storeBits16 = [](Tensor &t, int64_t i, int32_t v) {
    uint16_t bits = uint16_t(v);
    std::memcpy(t.mutableBytes() + i * 2, &bits, 2);
  };
  Status status;
  switch (*dtype) {
  case DType::F32:
    status = copyTyped(proto.float_data(), tensor, storeDouble);
    break;
  case DType::F64:
    status = copyTyped(proto.double_data(), tensor, storeDouble);
    break;
  case DType::I64:
    status = copyTyped(proto.int64_data(), tensor, storeInt);
    break;
  case DType::U32:
  case DType::U64:
    status = copyTyped(proto.uint64_data(), tensor,
                       [](Tensor &t, int64_t i, uint64_t v) { t.setInt(i, int64_t(v)); });
    break;
  case DType::F16:
  case DType::BF16:
    status = copyTyped(proto.int32_data(), tensor, storeBits16);
    break;
  default:
    status = copyTyped(proto.int32_data(), tensor, storeInt);
    break;
  }
  if (!status.ok())
    return context(status);
  return tensor;
}

} // namespace cuvil
