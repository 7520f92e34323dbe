#ifndef CUVIL_TESTS_UNIT_RUNTIME_PROTOENCODER_H
#define CUVIL_TESTS_UNIT_RUNTIME_PROTOENCODER_H

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cuvil::runtime::testing {

/// Hand-encodes protobuf wire format, so that tests can build TensorProto
/// files byte by byte without libprotobuf.
class ProtoEncoder {
public:
  static std::string varint(uint64_t value) {
    std::string bytes;
    do {
      uint8_t byte = value & 0x7f;
      value >>= 7;
      bytes += char(value ? byte | 0x80 : byte);
    } while (value);
    return bytes;
  }

  static std::string fixed(uint64_t bits, size_t width) {
    std::string bytes;
    for (size_t i = 0; i < width; ++i)
      bytes += char((bits >> (8 * i)) & 0xff);
    return bytes;
  }

  ProtoEncoder &key(uint32_t field, uint32_t wireType) {
    bytes_ += varint(uint64_t(field) << 3 | wireType);
    return *this;
  }
  ProtoEncoder &varintField(uint32_t field, uint64_t value) {
    key(field, 0);
    bytes_ += varint(value);
    return *this;
  }
  ProtoEncoder &fixed32Field(uint32_t field, uint32_t bits) {
    key(field, 5);
    bytes_ += fixed(bits, 4);
    return *this;
  }
  ProtoEncoder &fixed64Field(uint32_t field, uint64_t bits) {
    key(field, 1);
    bytes_ += fixed(bits, 8);
    return *this;
  }
  ProtoEncoder &bytesField(uint32_t field, std::string_view payload) {
    key(field, 2);
    bytes_ += varint(payload.size());
    bytes_ += payload;
    return *this;
  }
  ProtoEncoder &packedVarints(uint32_t field, const std::vector<int64_t> &values) {
    std::string payload;
    for (int64_t value : values)
      payload += varint(uint64_t(value));
    return bytesField(field, payload);
  }
  ProtoEncoder &packedFloats(uint32_t field, const std::vector<float> &values) {
    std::string payload;
    for (float value : values)
      payload += fixed(std::bit_cast<uint32_t>(value), 4);
    return bytesField(field, payload);
  }
  ProtoEncoder &packedDoubles(uint32_t field, const std::vector<double> &values) {
    std::string payload;
    for (double value : values)
      payload += fixed(std::bit_cast<uint64_t>(value), 8);
    return bytesField(field, payload);
  }
  /// Appends bytes as they are, e.g. to build malformed input.
  ProtoEncoder &raw(std::string_view bytes) {
    bytes_ += bytes;
    return *this;
  }

  const std::string &bytes() const { return bytes_; }

private:
  std::string bytes_;
};

// TensorProto field numbers used by the tests.
enum TensorField : uint32_t {
  kDims = 1,
  kDataType = 2,
  kSegment = 3,
  kFloatData = 4,
  kInt32Data = 5,
  kStringData = 6,
  kInt64Data = 7,
  kName = 8,
  kRawData = 9,
  kDoubleData = 10,
  kUint64Data = 11,
  kDocString = 12,
  kDataLocation = 14,
};

} // namespace cuvil::runtime::testing

#endif // CUVIL_TESTS_UNIT_RUNTIME_PROTOENCODER_H
