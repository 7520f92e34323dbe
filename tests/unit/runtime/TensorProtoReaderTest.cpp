#include "TensorProtoReader.h"

#include "ProtoEncoder.h"
#include "cuvil/runtime/ModelABI.h"

#include <cstring>
#include <gtest/gtest.h>

using namespace cuvil::runtime;
using cuvil::runtime::testing::ProtoEncoder;
namespace tf = cuvil::runtime::testing;

namespace {

template <typename T> std::vector<T> values(const HostTensor &tensor) {
  std::vector<T> result(tensor.numElements());
  std::memcpy(result.data(), tensor.data(), tensor.byteSize());
  return result;
}

std::string rawBytes(const void *data, size_t size) {
  return std::string(static_cast<const char *>(data), size);
}

void expectError(const std::string &bytes, const std::string &fragment) {
  try {
    parseTensorProto(bytes);
    FAIL() << "expected an error containing '" << fragment << "'";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(TensorProtoReader, StringDataKeepsEveryByte) {
  ProtoEncoder proto;
  proto.packedVarints(tf::kDims, {3})
      .varintField(tf::kDataType, CUVIL_DTYPE_STRING)
      .bytesField(tf::kStringData, "monday")
      .bytesField(tf::kStringData, "")
      .bytesField(tf::kStringData, std::string("a\0b\xce\xb1", 5));
  HostTensor tensor = parseTensorProto(proto.bytes());
  EXPECT_EQ(tensor.dtype(), CUVIL_DTYPE_STRING);
  EXPECT_EQ(tensor.shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ(tensor.stringAt(0), "monday");
  EXPECT_EQ(tensor.stringAt(1), "");
  EXPECT_EQ(tensor.stringAt(2), std::string("a\0b\xce\xb1", 5));
}

TEST(TensorProtoReader, StringDataMustMatchTheShape) {
  ProtoEncoder tooFew;
  tooFew.packedVarints(tf::kDims, {2})
      .varintField(tf::kDataType, CUVIL_DTYPE_STRING)
      .bytesField(tf::kStringData, "x");
  expectError(tooFew.bytes(), "has 1 strings, but 2 needs 2");
  ProtoEncoder raw;
  raw.packedVarints(tf::kDims, {1})
      .varintField(tf::kDataType, CUVIL_DTYPE_STRING)
      .bytesField(tf::kRawData, std::string(16, 'x'));
  expectError(raw.bytes(), "must be in string_data");
  ProtoEncoder numbers;
  numbers.packedVarints(tf::kDims, {1})
      .varintField(tf::kDataType, CUVIL_DTYPE_F32)
      .bytesField(tf::kStringData, "1.5");
  expectError(numbers.bytes(), "has string_data, but holds f32 values");
}

TEST(TensorProtoReader, RawDataF32) {
  float data[6] = {0, 1.5f, -2, 3, 4, 5};
  ProtoEncoder proto;
  proto.packedVarints(tf::kDims, {2, 3})
      .varintField(tf::kDataType, CUVIL_DTYPE_F32)
      .bytesField(tf::kName, "x")
      .bytesField(tf::kRawData, rawBytes(data, sizeof data));
  HostTensor tensor = parseTensorProto(proto.bytes());
  EXPECT_EQ(tensor.dtype(), CUVIL_DTYPE_F32);
  EXPECT_EQ(tensor.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<float>(tensor), std::vector<float>(data, data + 6));
}

TEST(TensorProtoReader, FloatDataPacked) {
  ProtoEncoder proto;
  proto.packedVarints(tf::kDims, {3})
      .varintField(tf::kDataType, CUVIL_DTYPE_F32)
      .packedFloats(tf::kFloatData, {1.25f, -7, 1e30f});
  EXPECT_EQ(values<float>(parseTensorProto(proto.bytes())), (std::vector<float>{1.25f, -7, 1e30f}));
}

TEST(TensorProtoReader, FloatDataUnpacked) {
  ProtoEncoder proto;
  proto.varintField(tf::kDataType, CUVIL_DTYPE_F32)
      .varintField(tf::kDims, 2)
      .fixed32Field(tf::kFloatData, std::bit_cast<uint32_t>(0.5f))
      .fixed32Field(tf::kFloatData, std::bit_cast<uint32_t>(-0.25f));
  EXPECT_EQ(values<float>(parseTensorProto(proto.bytes())), (std::vector<float>{0.5f, -0.25f}));
}

TEST(TensorProtoReader, Int64DataUnpackedAndDimsUnpacked) {
  ProtoEncoder proto;
  proto.varintField(tf::kDims, 2).varintField(tf::kDims, 2);
  proto.varintField(tf::kDataType, CUVIL_DTYPE_I64);
  for (int64_t value : {int64_t(-1), int64_t(0), int64_t(1) << 40, INT64_MIN})
    proto.varintField(tf::kInt64Data, uint64_t(value));
  HostTensor tensor = parseTensorProto(proto.bytes());
  EXPECT_EQ(tensor.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values<int64_t>(tensor), (std::vector<int64_t>{-1, 0, int64_t(1) << 40, INT64_MIN}));
}

TEST(TensorProtoReader, Int32DataCarriesBool) {
  ProtoEncoder proto;
  proto.packedVarints(tf::kDims, {4})
      .varintField(tf::kDataType, CUVIL_DTYPE_BOOL)
      .packedVarints(tf::kInt32Data, {0, 1, 1, 0});
  EXPECT_EQ(values<uint8_t>(parseTensorProto(proto.bytes())), (std::vector<uint8_t>{0, 1, 1, 0}));
}

TEST(TensorProtoReader, Int32DataCarriesF16BitPatterns) {
  ProtoEncoder proto;
  proto.packedVarints(tf::kDims, {3})
      .varintField(tf::kDataType, CUVIL_DTYPE_F16)
      .packedVarints(tf::kInt32Data, {0x3c00, 0xc000, 0x7c00}); // 1, -2, +inf
  EXPECT_EQ(values<uint16_t>(parseTensorProto(proto.bytes())),
            (std::vector<uint16_t>{0x3c00, 0xc000, 0x7c00}));
}

TEST(TensorProtoReader, Int32DataCarriesSmallSignedAndUnsignedTypes) {
  ProtoEncoder i8;
  i8.packedVarints(tf::kDims, {3})
      .varintField(tf::kDataType, CUVIL_DTYPE_I8)
      .packedVarints(tf::kInt32Data, {-5, 127, -128});
  EXPECT_EQ(values<int8_t>(parseTensorProto(i8.bytes())), (std::vector<int8_t>{-5, 127, -128}));

  ProtoEncoder u16;
  u16.packedVarints(tf::kDims, {2})
      .varintField(tf::kDataType, CUVIL_DTYPE_U16)
      .packedVarints(tf::kInt32Data, {65535, 7});
  EXPECT_EQ(values<uint16_t>(parseTensorProto(u16.bytes())), (std::vector<uint16_t>{65535, 7}));
}

TEST(TensorProtoReader, DoubleDataAndUint64Data) {
  ProtoEncoder f64;
  f64.packedVarints(tf::kDims, {2})
      .varintField(tf::kDataType, CUVIL_DTYPE_F64)
      .packedDoubles(tf::kDoubleData, {3.5, -1e300});
  EXPECT_EQ(values<double>(parseTensorProto(f64.bytes())), (std::vector<double>{3.5, -1e300}));

  ProtoEncoder u32;
  u32.packedVarints(tf::kDims, {2})
      .varintField(tf::kDataType, CUVIL_DTYPE_U32)
      .packedVarints(tf::kUint64Data, {4000000000, 1});
  EXPECT_EQ(values<uint32_t>(parseTensorProto(u32.bytes())),
            (std::vector<uint32_t>{4000000000u, 1}));
}

TEST(TensorProtoReader, ScalarHasNoDims) {
  ProtoEncoder proto;
  proto.varintField(tf::kDataType, CUVIL_DTYPE_I32).varintField(tf::kInt32Data, 42);
  HostTensor tensor = parseTensorProto(proto.bytes());
  EXPECT_TRUE(tensor.shape().empty());
  EXPECT_EQ(values<int32_t>(tensor), (std::vector<int32_t>{42}));
}

TEST(TensorProtoReader, SkipsUnknownFieldsOfEveryWireType) {
  int64_t data[2] = {7, -7};
  ProtoEncoder proto;
  proto.varintField(100, 12345)
      .packedVarints(tf::kDims, {2})
      .fixed64Field(101, 0x0123456789abcdefull)
      .varintField(tf::kDataType, CUVIL_DTYPE_I64)
      .fixed32Field(102, 0xdeadbeef)
      .bytesField(tf::kDocString, "documentation")
      .bytesField(tf::kSegment, ProtoEncoder().varintField(1, 0).bytes())
      .bytesField(103, std::string(300, 'z'))
      .varintField(tf::kDataLocation, 0)
      .bytesField(tf::kRawData, rawBytes(data, sizeof data));
  EXPECT_EQ(values<int64_t>(parseTensorProto(proto.bytes())), (std::vector<int64_t>{7, -7}));
}

TEST(TensorProtoReader, EmptyTensor) {
  ProtoEncoder proto;
  proto.packedVarints(tf::kDims, {0, 3}).varintField(tf::kDataType, CUVIL_DTYPE_F32);
  HostTensor tensor = parseTensorProto(proto.bytes());
  EXPECT_EQ(tensor.numElements(), 0u);
  EXPECT_NE(tensor.data(), nullptr);
}

TEST(TensorProtoReader, RejectsExternalData) {
  ProtoEncoder proto;
  proto.packedVarints(tf::kDims, {2})
      .varintField(tf::kDataType, CUVIL_DTYPE_F32)
      .bytesField(13, ProtoEncoder().bytesField(1, "location").bytesField(2, "x.bin").bytes())
      .varintField(tf::kDataLocation, 1);
  expectError(proto.bytes(), "external file");
}

TEST(TensorProtoReader, RejectsMalformedWireData) {
  expectError(ProtoEncoder().key(tf::kDataType, 0).raw("\xff\xff").bytes(), "truncated varint");
  expectError(std::string(11, '\xff'), "varint longer than 10 bytes");
  expectError(ProtoEncoder().key(tf::kRawData, 2).raw(ProtoEncoder::varint(100)).raw("abc").bytes(),
              "runs past the end");
  expectError(ProtoEncoder().key(tf::kFloatData, 5).raw("ab").bytes(), "truncated fixed-width");
  expectError(ProtoEncoder().key(20, 3).bytes(), "unsupported wire type 3");
  expectError(ProtoEncoder().key(20, 6).bytes(), "unsupported wire type 6");
  expectError(ProtoEncoder().key(0, 0).raw("\x01").bytes(), "field number 0");
  expectError(ProtoEncoder().fixed32Field(tf::kDataType, 1).bytes(), "wire type 5");
  expectError(ProtoEncoder().varintField(tf::kRawData, 1).bytes(), "wire type 0");
}

TEST(TensorProtoReader, RejectsInconsistentTensors) {
  expectError("", "no data_type");
  expectError(ProtoEncoder().packedVarints(tf::kDims, {2}).bytes(), "no data_type");
  expectError(ProtoEncoder().varintField(tf::kDataType, 14).bytes(),
              "unsupported data type complex64");
  expectError(ProtoEncoder()
                  .packedVarints(tf::kDims, {2})
                  .varintField(tf::kDataType, CUVIL_DTYPE_F32)
                  .bytesField(tf::kRawData, "1234567")
                  .bytes(),
              "raw_data has 7 bytes, but f32 2 needs 8");
  expectError(ProtoEncoder()
                  .packedVarints(tf::kDims, {3})
                  .varintField(tf::kDataType, CUVIL_DTYPE_F32)
                  .packedFloats(tf::kFloatData, {1, 2})
                  .bytes(),
              "has 2 values, but f32 3 needs 3");
  expectError(ProtoEncoder()
                  .packedVarints(tf::kDims, {2})
                  .varintField(tf::kDataType, CUVIL_DTYPE_F32)
                  .bytes(),
              "has 0 values");
  expectError(ProtoEncoder()
                  .packedVarints(tf::kDims, {1})
                  .varintField(tf::kDataType, CUVIL_DTYPE_I64)
                  .packedFloats(tf::kFloatData, {1})
                  .bytes(),
              "float_data cannot hold i64");
  expectError(ProtoEncoder()
                  .packedVarints(tf::kDims, {1})
                  .varintField(tf::kDataType, CUVIL_DTYPE_F32)
                  .packedFloats(tf::kFloatData, {1})
                  .bytesField(tf::kRawData, "abcd")
                  .bytes(),
              "both raw_data and float_data");
  expectError(ProtoEncoder()
                  .varintField(tf::kDataType, CUVIL_DTYPE_I64)
                  .packedFloats(tf::kFloatData, {1})
                  .packedVarints(tf::kInt64Data, {1})
                  .bytes(),
              "both float_data and int64_data");
  expectError(ProtoEncoder()
                  .packedVarints(tf::kDims, {2, -1})
                  .varintField(tf::kDataType, CUVIL_DTYPE_F32)
                  .bytes(),
              "negative dimension");
  expectError(ProtoEncoder()
                  .packedVarints(tf::kDims, {int64_t(1) << 62, int64_t(1) << 62})
                  .varintField(tf::kDataType, CUVIL_DTYPE_F32)
                  .bytes(),
              "too large");
  expectError(ProtoEncoder()
                  .packedVarints(tf::kDims, {int64_t(1) << 62})
                  .varintField(tf::kDataType, CUVIL_DTYPE_F32)
                  .bytesField(tf::kRawData, "abcd")
                  .bytes(),
              "too large");
}

} // namespace
