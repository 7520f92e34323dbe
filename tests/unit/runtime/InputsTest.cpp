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
const cuvil_tensor_info kSingleInput[] = {{"image", CUVIL_DTYPE_F32, 1, kDims}};
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

} // namespace
