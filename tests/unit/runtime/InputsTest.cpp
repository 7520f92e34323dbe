#include "Inputs.h"

#include "FileIO.h"
#include "NpyFormat.h"
#include "ProtoEncoder.h"

#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>

using namespace cuvil::runtime;
namespace tf = cuvil::runtime::testing;

namespace {

const int64_t kDims[] = {3};
const cuvil_tensor_info kSingleInput[] = {
    {"image", CUVIL_DTYPE_F32, 1, kDims, nullptr, nullptr, 0, nullptr, nullptr}};
// A model with the one input above (the rest of the record zero).
cuvil_model_info singleInputModel() {
  cuvil_model_info info{};
  info.abi_version = CUVIL_ABI_VERSION;
  info.num_inputs = 1;
  info.inputs = kSingleInput;
  info.model_name = "one";
  info.target = "t";
  info.cpu = "c";
  info.compiler_version = "v";
  return info;
}
const cuvil_model_info kSingleInputModel = singleInputModel();

class InputsTest : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/cuvil-inputs-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string &name) const { return dir_ + "/" + name; }

  std::string dir_;
};

TEST_F(InputsTest, SingleInputModelTakesAnUnnamedFile) {
  writeFile(path("a.npy"), encodeNpy(HostTensor(CUVIL_DTYPE_F32, {3})));
  std::vector<HostTensor> inputs = loadInputs({{"", path("a.npy")}}, kSingleInputModel);
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0].shape(), (std::vector<int64_t>{3}));
}

TEST_F(InputsTest, FormatIsChosenByContentNotByName) {
  // A .npy named .pb and a TensorProto named .npy.
  writeFile(path("npy.pb"), encodeNpy(HostTensor(CUVIL_DTYPE_F32, {3})));
  tf::ProtoEncoder proto;
  proto.packedVarints(tf::kDims, {3})
      .varintField(tf::kDataType, CUVIL_DTYPE_F32)
      .packedFloats(tf::kFloatData, {1, 2, 3});
  writeFile(path("pb.npy"), proto.bytes());
  EXPECT_EQ(loadTensorFile(path("npy.pb")).dtype(), CUVIL_DTYPE_F32);
  EXPECT_EQ(loadTensorFile(path("pb.npy")).numElements(), 3u);
}

TEST_F(InputsTest, ReportsUnreadableFiles) {
  try {
    loadInputs({{"image", path("missing.npy")}}, kSingleInputModel);
    FAIL();
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find("input 'image': cannot open"), std::string::npos)
        << error.what();
  }
  try {
    loadTensorFile(dir_);
    FAIL();
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find("cannot read"), std::string::npos) << error.what();
  }
}

// Two inputs share the symbol 'seq' (ids [1, seq], mask [1, seq]).
const cuvil_symbol_info kSeq[] = {{"seq", 8, 128, 512, 0}};
const int64_t kSeqDims[] = {1, 512};
const int32_t kSeqSymbols[] = {CUVIL_DIM_CONSTANT, 0};
const char *const kSeqExprs[] = {nullptr, "seq"};
const cuvil_tensor_info kSeqInputs[] = {
    {"ids", CUVIL_DTYPE_I64, 2, kSeqDims, kSeqSymbols, kSeqExprs, 0, nullptr, nullptr},
    {"mask", CUVIL_DTYPE_I64, 2, kSeqDims, kSeqSymbols, kSeqExprs, 0, nullptr, nullptr}};
cuvil_model_info sharedSymbolModel() {
  cuvil_model_info info{};
  info.abi_version = CUVIL_ABI_VERSION;
  info.num_inputs = 2;
  info.inputs = kSeqInputs;
  info.num_symbols = 1;
  info.symbols = kSeq;
  return info;
}

std::string bindError(const std::vector<int64_t> &ids, const std::vector<int64_t> &mask) {
  std::vector<HostTensor> inputs;
  inputs.emplace_back(CUVIL_DTYPE_I64, ids);
  inputs.emplace_back(CUVIL_DTYPE_I64, mask);
  try {
    bindSymbols(sharedSymbolModel(), inputs);
  } catch (const std::runtime_error &error) {
    return error.what();
  }
  return "";
}

TEST(BindSymbols, OneValuePerSymbolWithinItsRange) {
  std::vector<HostTensor> inputs;
  inputs.emplace_back(CUVIL_DTYPE_I64, std::vector<int64_t>{1, 77});
  inputs.emplace_back(CUVIL_DTYPE_I64, std::vector<int64_t>{1, 77});
  EXPECT_EQ(bindSymbols(sharedSymbolModel(), inputs), (std::vector<int64_t>{77}));
  EXPECT_EQ(bindError({1, 77}, {1, 64}),
            "input 'mask' dim 1 is 64, but input 'ids' dim 1 is 77: both are 'seq'");
  EXPECT_EQ(bindError({1, 4}, {1, 4}), "input 'ids' dim 1 is 4, outside the range [8, 512] of "
                                       "'seq' the model was compiled for");
  EXPECT_EQ(bindError({1, 8}, {1, 513}), "input 'mask' dim 1 is 513, outside the range [8, 512] "
                                         "of 'seq' the model was compiled for");
}

// A shape tensor compiled with --value-range shape=1,4:2,4:8,4 and a
// second input with --value axes=0,-1 (an int32 one).
const cuvil_symbol_info kShapeValue[] = {{"shape_value0", 1, 2, 8, 0}};
const int64_t kTwo[] = {2};
const int32_t kConstantDim[] = {CUVIL_DIM_CONSTANT};
const char *const kNoExpr[] = {nullptr};
const int32_t kShapeValueSymbols[] = {0, CUVIL_DIM_CONSTANT};
const int64_t kShapeValues[] = {8, 4};
const int32_t kAxesValueSymbols[] = {CUVIL_DIM_CONSTANT, CUVIL_DIM_CONSTANT};
const int64_t kAxesValues[] = {0, -1};
const cuvil_tensor_info kValueInputs[] = {
    {"shape", CUVIL_DTYPE_I64, 1, kTwo, kConstantDim, kNoExpr, 2, kShapeValueSymbols, kShapeValues},
    {"axes", CUVIL_DTYPE_I32, 1, kTwo, kConstantDim, kNoExpr, 2, kAxesValueSymbols, kAxesValues}};

template <typename T> HostTensor integers(int32_t dtype, std::vector<T> values) {
  HostTensor tensor(dtype, {int64_t(values.size())});
  std::memcpy(tensor.data(), values.data(), values.size() * sizeof(T));
  return tensor;
}

std::string valueBindError(std::vector<int64_t> shape, std::vector<int32_t> axes,
                           std::vector<int64_t> *bound = nullptr) {
  cuvil_model_info model{};
  model.abi_version = CUVIL_ABI_VERSION;
  model.num_inputs = 2;
  model.inputs = kValueInputs;
  model.num_symbols = 1;
  model.symbols = kShapeValue;
  std::vector<HostTensor> inputs;
  inputs.push_back(integers(CUVIL_DTYPE_I64, shape));
  inputs.push_back(integers(CUVIL_DTYPE_I32, axes));
  try {
    std::vector<int64_t> symbols = bindSymbols(model, inputs);
    if (bound)
      *bound = symbols;
  } catch (const std::runtime_error &error) {
    return error.what();
  }
  return "";
}

TEST(BindSymbols, InputValuesGiveSymbolsAndMustMatchFixedOnes) {
  std::vector<int64_t> bound;
  EXPECT_EQ(valueBindError({5, 4}, {0, -1}, &bound), "");
  EXPECT_EQ(bound, (std::vector<int64_t>{5}));
  EXPECT_EQ(valueBindError({9, 4}, {0, -1}), "input 'shape' element 0 is 9, outside the range "
                                             "[1, 8] of 'shape_value0' the model was compiled for");
  EXPECT_EQ(valueBindError({5, 3}, {0, -1}),
            "input 'shape' element 1 is 3, but the model was compiled for 4 (--value)");
  EXPECT_EQ(valueBindError({5, 4}, {0, 1}),
            "input 'axes' element 1 is 1, but the model was compiled for -1 (--value)");
}

} // namespace
