#include "NpyFormat.h"

#include "cuvil/runtime/ModelABI.h"

#include <cstring>
#include <gtest/gtest.h>

using namespace cuvil::runtime;
using namespace std::string_literals;

namespace {

const int32_t kAllDTypes[] = {CUVIL_DTYPE_F32, CUVIL_DTYPE_U8,  CUVIL_DTYPE_I8,  CUVIL_DTYPE_U16,
                              CUVIL_DTYPE_I16, CUVIL_DTYPE_I32, CUVIL_DTYPE_I64, CUVIL_DTYPE_BOOL,
                              CUVIL_DTYPE_F16, CUVIL_DTYPE_F64, CUVIL_DTYPE_U32, CUVIL_DTYPE_U64,
                              CUVIL_DTYPE_BF16};

/// A .npy file with the given format version, header text and data.
std::string makeNpy(int major, const std::string &header, const std::string &data) {
  std::string file = "\x93NUMPY";
  file += char(major);
  file += '\0';
  size_t widths = major == 1 ? 2 : 4;
  for (size_t i = 0; i < widths; ++i)
    file += char((header.size() >> (8 * i)) & 0xff);
  return file + header + data;
}

std::string floatBytes(std::vector<float> values) {
  return std::string(reinterpret_cast<const char *>(values.data()), values.size() * 4);
}

void expectError(const std::string &bytes, const std::string &fragment) {
  try {
    parseNpy(bytes);
    FAIL() << "expected an error containing '" << fragment << "'";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(NpyFormat, StringsRoundTripAsUtf32) {
  HostTensor tensor(CUVIL_DTYPE_STRING, {2, 2});
  tensor.setStrings({"monday", "", "\xce\x91\xce\x92 \xe6\x97\xa5", "x"}); // "ΑΒ 日"
  std::string file = encodeNpy(tensor);
  // numpy's fixed-width UTF-32: as wide as the longest string's code points.
  EXPECT_NE(file.find("'descr': '<U6'"), std::string::npos);
  HostTensor back = parseNpy(file);
  ASSERT_EQ(back.dtype(), CUVIL_DTYPE_STRING);
  EXPECT_EQ(back.shape(), (std::vector<int64_t>{2, 2}));
  for (uint64_t i = 0; i < 4; ++i)
    EXPECT_EQ(back.stringAt(i), tensor.stringAt(i));
}

TEST(NpyFormat, ReadsByteStringsAndRefusesInvalidCodePoints) {
  HostTensor bytes = parseNpy(makeNpy(
      1, "{'descr': '|S3', 'fortran_order': False, 'shape': (2,), }", std::string("ab\0xyz", 6)));
  ASSERT_EQ(bytes.dtype(), CUVIL_DTYPE_STRING);
  EXPECT_EQ(bytes.stringAt(0), "ab");
  EXPECT_EQ(bytes.stringAt(1), "xyz");
  expectError(makeNpy(1, "{'descr': '<U1', 'fortran_order': False, 'shape': (1,), }",
                      std::string("\x00\xd8\x00\x00", 4)),
              "invalid code point");
  expectError(
      makeNpy(1, "{'descr': '<U2', 'fortran_order': False, 'shape': (2,), }", std::string(12, 'a')),
      "needs 16 bytes of data but the file has 12");
}

TEST(NpyFormat, RoundTripsEveryDType) {
  for (int32_t dtype : kAllDTypes) {
    HostTensor tensor(dtype, {2, 3});
    for (size_t i = 0; i < tensor.byteSize(); ++i)
      tensor.data()[i] = std::byte(dtype == CUVIL_DTYPE_BOOL ? i % 2 : i * 37 + 1);
    std::string file = encodeNpy(tensor);

    // numpy's layout: v1.0, header padded with spaces to a 64-byte boundary, ending in '\n'.
    ASSERT_TRUE(isNpy(file));
    EXPECT_EQ(file[6], '\x01');
    EXPECT_EQ(file[7], '\x00');
    size_t headerLength = uint8_t(file[8]) | uint8_t(file[9]) << 8;
    EXPECT_EQ((10 + headerLength) % 64, 0u);
    EXPECT_EQ(file[10 + headerLength - 1], '\n');
    EXPECT_EQ(file.size(), 10 + headerLength + tensor.byteSize());

    HostTensor back = parseNpy(file);
    // numpy has no bfloat16: it is written as, and so reads back as, uint16.
    EXPECT_EQ(back.dtype(), dtype == CUVIL_DTYPE_BF16 ? CUVIL_DTYPE_U16 : dtype);
    EXPECT_EQ(back.shape(), tensor.shape());
    ASSERT_EQ(back.byteSize(), tensor.byteSize());
    EXPECT_EQ(std::memcmp(back.data(), tensor.data(), tensor.byteSize()), 0) << dtypeName(dtype);
  }
}

TEST(NpyFormat, WritesNumpyDescrs) {
  auto descr = [](int32_t dtype) { return npyDescr(*findDType(dtype)); };
  EXPECT_EQ(descr(CUVIL_DTYPE_F32), "<f4");
  EXPECT_EQ(descr(CUVIL_DTYPE_F16), "<f2");
  EXPECT_EQ(descr(CUVIL_DTYPE_BF16), "<u2");
  EXPECT_EQ(descr(CUVIL_DTYPE_BOOL), "|b1");
  EXPECT_EQ(descr(CUVIL_DTYPE_I8), "|i1");
  EXPECT_EQ(descr(CUVIL_DTYPE_U8), "|u1");
  EXPECT_EQ(descr(CUVIL_DTYPE_I64), "<i8");
  EXPECT_EQ(descr(CUVIL_DTYPE_U64), "<u8");
  EXPECT_EQ(descr(CUVIL_DTYPE_F64), "<f8");
}

TEST(NpyFormat, WritesPythonTupleShapes) {
  auto header = [](std::vector<int64_t> shape) {
    std::string file = encodeNpy(HostTensor(CUVIL_DTYPE_F32, shape));
    return file.substr(10, file.find('}') - 9);
  };
  EXPECT_EQ(header({}), "{'descr': '<f4', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(header({3}), "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }");
  EXPECT_EQ(header({1, 3, 224, 224}),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), }");
}

TEST(NpyFormat, ReadsScalarAndEmptyArrays) {
  HostTensor scalar = parseNpy(
      makeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n", floatBytes({2.5f})));
  EXPECT_TRUE(scalar.shape().empty());
  EXPECT_EQ(scalar.numElements(), 1u);

  HostTensor empty =
      parseNpy(makeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }\n", ""));
  EXPECT_EQ(empty.shape(), (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(empty.byteSize(), 0u);
}

TEST(NpyFormat, ReadsVersion2And3Headers) {
  for (int major : {2, 3}) {
    HostTensor tensor =
        parseNpy(makeNpy(major, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }  \n",
                         floatBytes({1, 2})));
    EXPECT_EQ(tensor.shape(), (std::vector<int64_t>{2}));
    float values[2];
    std::memcpy(values, tensor.data(), sizeof values);
    EXPECT_EQ(values[1], 2.0f);
  }
}

TEST(NpyFormat, AcceptsHeaderSpellingVariants) {
  // Other key order, double quotes, no trailing comma, extra blanks.
  HostTensor tensor = parseNpy(
      makeNpy(1, "{ \"shape\" : ( 1 ,2 ) , \"fortran_order\":False,'descr':'|u1'}\n", "ab"));
  EXPECT_EQ(tensor.dtype(), CUVIL_DTYPE_U8);
  EXPECT_EQ(tensor.shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(parseNpy(makeNpy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (1,)}",
                             std::string(8, '\0')))
                .dtype(),
            CUVIL_DTYPE_I64);
}

TEST(NpyFormat, RejectsUnsupportedLayouts) {
  std::string data = floatBytes({1, 2});
  expectError(makeNpy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", data),
              "fortran_order is True");
  expectError(makeNpy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", data),
              "big-endian");
  expectError(makeNpy(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", data),
              "unsupported dtype '<c8'");
  expectError(makeNpy(1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", data),
              "unsupported dtype '|O' (pickled objects); save strings as a numpy str array");
  expectError(makeNpy(1, "{'descr': '<U3x', 'fortran_order': False, 'shape': (1,), }", data),
              "unsupported dtype '<U3x'");
  std::string v4 = makeNpy(1, "{}", "");
  v4[6] = 4;
  expectError(v4, "unsupported format version 4.0");
}

TEST(NpyFormat, RejectsTruncatedAndOversizedFiles) {
  std::string good =
      makeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", floatBytes({1, 2}));
  expectError(good.substr(0, good.size() - 1), "needs 8 bytes of data but the file has 7");
  expectError(good + "x", "needs 8 bytes of data but the file has 9");
  expectError(good.substr(0, 9), "truncated header");
  expectError(good.substr(0, 30), "runs past the end of the file");
  expectError("\x93NUMPY\x02\x00\xff\xff\xff\xff{}"s, "header length 4294967295 runs past");
  expectError("\x93NUMPX\x01\x00"s, "magic");
}

TEST(NpyFormat, RejectsBadHeaders) {
  std::string data = floatBytes({1});
  auto header = [&](const std::string &text) { return makeNpy(1, text, data); };
  expectError(header("{'descr': '<f4', 'shape': (1,), }"), "lacks one of");
  expectError(header("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}"),
              "unexpected or repeated key 'descr'");
  expectError(header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}"),
              "unexpected or repeated key 'x'");
  expectError(header("{'descr': '<f4', 'fortran_order': False, 'shape': (a,), }"), "bad dimension");
  expectError(header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"),
              "bad dimension");
  expectError(header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}"),
              "bad dimension");
  expectError(header("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }"), "True or False");
  expectError(header("{'descr': '<f4, 'fortran_order': False, 'shape': (1,), }"),
              "malformed header");
  expectError(header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "),
              "expected a string");
  expectError(header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x"),
              "trailing characters");
  expectError(header("{'descr': '<f4', 'fortran_order': False, 'shape': (1 2)}"), "expected ')'");
  expectError(header("{'descr': '<f4', 'fortran_order': False, 'shape': "
                     "(4611686018427387904, 4611686018427387904)}"),
              "too large");
}

} // namespace
