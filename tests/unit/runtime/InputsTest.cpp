#include "Inputs.h"

#include "FileIO.h"
#include "NpyFormat.h"
#include "ProtoEncoder.h"

#include <filesystem>
#include <gtest/gtest.h>

using namespace cuvil::runtime;
namespace tf = cuvil::runtime::testing;

namespace {

const int64_t kDims[] = {3};
const cuvil_tensor_info kSingleInput[] = {{"image", CUVIL_DTYPE_F32, 1, kDims, nullptr, nullptr}};
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
    {"ids", CUVIL_DTYPE_I64, 2, kSeqDims, kSeqSymbols, kSeqExprs},
    {"mask", CUVIL_DTYPE_I64, 2, kSeqDims, kSeqSymbols, kSeqExprs}};
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

} // namespace
