#include "TensorProtoReader.h"

#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

namespace cuvil {
namespace {

namespace fs = std::filesystem;

Expected<std::vector<uint8_t>> readExternalData(const onnx::TensorProto &proto,
                                                const std::string &modelDir, size_t expected) {
  std::string location;
  uint64_t offset = 0;
  int64_t length = -1;
  for (const auto &entry : proto.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset")
      offset = std::stoull(entry.value());
    else if (entry.key() == "length")
      length = std::stoll(entry.value());
  }
  if (location.empty())
    return Status::error("external data without a location");
  fs::path base = fs::weakly_canonical(fs::path(modelDir.empty() ? "." : modelDir));
  fs::path file = fs::weakly_canonical(base / location);
  auto relative = file.lexically_relative(base);
  if (fs::path(location).is_absolute() || relative.empty() || *relative.begin() == "..")
    return Status::error(
        fmt::format("external data '{}' is outside the model's directory", location));
  if (length >= 0 && size_t(length) != expected)
    return Status::error(
        fmt::format("external data length {} does not match {} bytes", length, expected));
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return Status::error(fmt::format("cannot open external data file {}", file.string()));
  in.seekg(std::streamoff(offset));
  std::vector<uint8_t> bytes(expected);
  in.read(reinterpret_cast<char *>(bytes.data()), std::streamsize(expected));
  if (size_t(in.gcount()) != expected)
    return Status::error(fmt::format("external data file {} is too short", file.string()));
  return bytes;
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

Expected<Tensor> readTensorProto(const onnx::TensorProto &proto, const std::string &modelDir) {
  std::optional<DType> dtype = dtypeFromOnnxCode(proto.data_type());
  if (!dtype)
    return Status::error(fmt::format("tensor '{}' has unsupported element type {}", proto.name(),
                                     proto.data_type()));
  Shape shape;
  for (int64_t dim : proto.dims()) {
    if (dim < 0)
      return Status::error(fmt::format("tensor '{}' has a negative dimension", proto.name()));
    shape.push_back(dim);
  }
  Tensor tensor(TensorType{*dtype, shape});
  size_t bytes = tensor.byteSize();
  auto context = [&](Status status) {
    return status.withContext(fmt::format("tensor '{}'", proto.name()));
  };

  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    Expected<std::vector<uint8_t>> data = readExternalData(proto, modelDir, bytes);
    if (!data)
      return context(data.status());
    return Tensor(tensor.type(), data.take());
  }
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != bytes)
      return context(Status::error(
          fmt::format("raw_data has {} bytes, expected {}", proto.raw_data().size(), bytes)));
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
