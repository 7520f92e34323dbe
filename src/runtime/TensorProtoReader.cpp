#include "TensorProtoReader.h"

#include "cuvil/runtime/ModelABI.h"

#include <cstring>
#include <optional>
#include <stdexcept>

namespace cuvil::runtime {
namespace {

[[noreturn]] void fail(const std::string &message) {
  throw std::runtime_error("invalid TensorProto: " + message);
}

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// onnx.proto field numbers of TensorProto.
enum Field : uint32_t {
  kDims = 1,
  kDataType = 2,
  kFloatData = 4,
  kInt32Data = 5,
  kStringData = 6,
  kInt64Data = 7,
  kRawData = 9,
  kDoubleData = 10,
  kUint64Data = 11,
  kDataLocation = 14,
};

constexpr uint64_t kDataLocationExternal = 1;

/// Bounds-checked cursor over protobuf wire-format bytes.
class WireReader {
public:
  explicit WireReader(std::string_view bytes) : bytes_(bytes) {}

  bool atEnd() const { return pos_ == bytes_.size(); }

  uint64_t varint() {
    uint64_t value = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (atEnd())
        fail("truncated varint");
      uint8_t byte = uint8_t(bytes_[pos_++]);
      value |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return value;
    }
    fail("varint longer than 10 bytes");
  }

  uint64_t fixed(size_t width) {
    if (bytes_.size() - pos_ < width)
      fail("truncated fixed-width value");
    uint64_t value = 0;
    for (size_t i = 0; i < width; ++i)
      value |= uint64_t(uint8_t(bytes_[pos_ + i])) << (8 * i);
    pos_ += width;
    return value;
  }

  std::string_view lengthDelimited() {
    uint64_t length = varint();
    if (length > bytes_.size() - pos_)
      fail("length " + std::to_string(length) + " runs past the end of the data");
    std::string_view value = bytes_.substr(pos_, length);
    pos_ += length;
    return value;
  }

  void skip(uint32_t wireType) {
    switch (wireType) {
    case kVarint:
      varint();
      return;
    case kFixed64:
      fixed(8);
      return;
    case kLengthDelimited:
      lengthDelimited();
      return;
    case kFixed32:
      fixed(4);
      return;
    default:
      // Groups (3, 4) are deprecated and never used by onnx.proto; 6 and 7 are invalid.
      fail("unsupported wire type " + std::to_string(wireType));
    }
  }

private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

/// Appends the values of a repeated scalar field, packed or not. Values are
/// kept as raw 64-bit words (varint value or fixed-width bits) and narrowed
/// to the tensor's element type later.
void readRepeated(WireReader &reader, uint64_t field, uint32_t wireType, uint32_t elementWire,
                  std::vector<uint64_t> &values) {
  auto readOne = [&](WireReader &from) {
    values.push_back(elementWire == kVarint    ? from.varint()
                     : elementWire == kFixed32 ? from.fixed(4)
                                               : from.fixed(8));
  };
  if (wireType == elementWire) {
    readOne(reader);
    return;
  }
  if (wireType != kLengthDelimited)
    fail("field " + std::to_string(field) + " has wire type " + std::to_string(wireType));
  WireReader packed(reader.lengthDelimited());
  while (!packed.atEnd())
    readOne(packed);
}

/// The typed field that carries elements of dtype when raw_data is absent, as
/// specified in onnx.proto.
uint32_t typedFieldFor(int32_t dtype) {
  switch (dtype) {
  case CUVIL_DTYPE_F32:
    return kFloatData;
  case CUVIL_DTYPE_I64:
    return kInt64Data;
  case CUVIL_DTYPE_F64:
    return kDoubleData;
  case CUVIL_DTYPE_U32:
  case CUVIL_DTYPE_U64:
    return kUint64Data;
  default: // i8 u8 i16 u16 i32 bool f16 bf16 (the last two as bit patterns)
    return kInt32Data;
  }
}

const char *fieldName(uint32_t field) {
  switch (field) {
  case kFloatData:
    return "float_data";
  case kInt32Data:
    return "int32_data";
  case kInt64Data:
    return "int64_data";
  case kDoubleData:
    return "double_data";
  default:
    return "uint64_data";
  }
}

} // namespace

HostTensor parseTensorProto(std::string_view bytes) {
  std::vector<int64_t> dims;
  int32_t dataType = 0;
  std::optional<std::string_view> rawData;
  std::optional<uint32_t> typedField;
  std::vector<uint64_t> typedValues;
  std::vector<std::string> strings; // string_data

  WireReader reader(bytes);
  while (!reader.atEnd()) {
    uint64_t key = reader.varint();
    uint32_t wireType = key & 7;
    uint64_t field = key >> 3;
    auto expectWire = [&](uint32_t expected) {
      if (wireType != expected)
        fail("field " + std::to_string(field) + " has wire type " + std::to_string(wireType));
    };
    switch (field) {
    case kDims: {
      std::vector<uint64_t> values;
      readRepeated(reader, field, wireType, kVarint, values);
      for (uint64_t value : values)
        dims.push_back(int64_t(value));
      break;
    }
    case kDataType:
      expectWire(kVarint);
      dataType = int32_t(reader.varint());
      break;
    case kFloatData:
    case kInt32Data:
    case kInt64Data:
    case kDoubleData:
    case kUint64Data: {
      if (typedField && *typedField != field)
        fail("has both " + std::string(fieldName(*typedField)) + " and " + fieldName(field));
      typedField = field;
      uint32_t elementWire = field == kFloatData    ? kFixed32
                             : field == kDoubleData ? kFixed64
                                                    : kVarint;
      readRepeated(reader, field, wireType, elementWire, typedValues);
      break;
    }
    case kRawData:
      expectWire(kLengthDelimited);
      rawData = reader.lengthDelimited();
      break;
    case kStringData:
      expectWire(kLengthDelimited);
      strings.emplace_back(reader.lengthDelimited());
      break;
    case kDataLocation:
      expectWire(kVarint);
      if (reader.varint() == kDataLocationExternal)
        fail("the tensor data is stored in an external file (data_location = EXTERNAL), "
             "which is not supported; embed the data in the .pb file");
      break;
    default: // name, doc_string, segment, external_data, ...
      if (field == 0)
        fail("field number 0");
      reader.skip(wireType);
    }
  }

  if (dataType == 0)
    fail("no data_type");
  const DTypeInfo *info = findDType(dataType);
  if (!info)
    fail("unsupported data type " + dtypeName(dataType));
  size_t byteSize = checkedByteSize(*info, dims);
  uint64_t numElements = checkedNumElements(dims);

  if (dataType == CUVIL_DTYPE_STRING) {
    if (rawData || typedField)
      fail("a string tensor's elements must be in string_data");
    if (strings.size() != numElements)
      fail("has " + std::to_string(strings.size()) + " strings, but " + formatShape(dims) +
           " needs " + std::to_string(numElements));
    HostTensor tensor(dataType, std::move(dims));
    tensor.setStrings(std::move(strings));
    return tensor;
  }
  if (!strings.empty())
    fail("has string_data, but holds " + std::string(info->name) + " values");

  if (rawData) {
    if (typedField)
      fail("has both raw_data and " + std::string(fieldName(*typedField)));
    if (rawData->size() != byteSize)
      fail("raw_data has " + std::to_string(rawData->size()) + " bytes, but " +
           std::string(info->name) + " " + formatShape(dims) + " needs " +
           std::to_string(byteSize));
    HostTensor tensor(dataType, std::move(dims));
    std::memcpy(tensor.data(), rawData->data(), byteSize);
    return tensor;
  }

  uint32_t expectedField = typedFieldFor(dataType);
  if (typedField && *typedField != expectedField)
    fail(std::string(fieldName(*typedField)) + " cannot hold " + std::string(info->name) +
         " values (expected " + fieldName(expectedField) + " or raw_data)");
  if (typedValues.size() != numElements)
    fail("has " + std::to_string(typedValues.size()) + " values, but " + std::string(info->name) +
         " " + formatShape(dims) + " needs " + std::to_string(numElements));
  HostTensor tensor(dataType, std::move(dims));
  std::byte *out = tensor.data();
  for (uint64_t value : typedValues) {
    // Narrowing keeps the low bytes: two's complement for the small signed
    // types, the bit pattern for f16/bf16 (the host is little-endian).
    if (dataType == CUVIL_DTYPE_BOOL)
      value = value != 0;
    std::memcpy(out, &value, info->size);
    out += info->size;
  }
  return tensor;
}

} // namespace cuvil::runtime
