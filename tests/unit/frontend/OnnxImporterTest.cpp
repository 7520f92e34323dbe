// The ONNX frontend on models built in memory: external data confinement,
// symbolic dimensions, opset normalisation and the unsupported-op report.
#include "cuvil/frontend/OnnxImporter.h"
#include "cuvil/ir/Printer.h"
#include "cuvil/ops/AllOps.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

namespace cuvil {
namespace {

namespace fs = std::filesystem;

class OnnxImporterTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerAllOps();
    dir_ = fs::temp_directory_path() /
           ("cuvil_import_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_ / "model");
    model_.set_ir_version(8);
    auto *opset = model_.add_opset_import();
    opset->set_domain("");
    opset->set_version(17);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void addInput(const std::string &name, std::vector<std::variant<int64_t, std::string>> dims) {
    auto *input = model_.mutable_graph()->add_input();
    input->set_name(name);
    auto *tensor = input->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    for (const auto &dim : dims) {
      auto *d = tensor->mutable_shape()->add_dim();
      if (auto *value = std::get_if<int64_t>(&dim))
        d->set_dim_value(*value);
      else
        d->set_dim_param(std::get<std::string>(dim));
    }
  }
  onnx::NodeProto *addNode(const std::string &op, std::vector<std::string> inputs,
                           std::vector<std::string> outputs, const std::string &name = "") {
    auto *node = model_.mutable_graph()->add_node();
    node->set_op_type(op);
    node->set_name(name);
    for (const auto &input : inputs)
      node->add_input(input);
    for (const auto &output : outputs)
      node->add_output(output);
    return node;
  }
  void addOutput(const std::string &name) { model_.mutable_graph()->add_output()->set_name(name); }

  // y = x + w, w a float[4] initializer stored in the external file `location`.
  void addExternalWeightsGraph(const std::string &location) {
    addInput("x", {int64_t(4)});
    auto *init = model_.mutable_graph()->add_initializer();
    init->set_name("w");
    init->set_data_type(onnx::TensorProto::FLOAT);
    init->add_dims(4);
    init->set_data_location(onnx::TensorProto::EXTERNAL);
    auto *entry = init->add_external_data();
    entry->set_key("location");
    entry->set_value(location);
    addNode("Add", {"x", "w"}, {"y"});
    addOutput("y");
  }

  Expected<std::unique_ptr<Graph>> import(ImportOptions options = {}) {
    std::string path = (dir_ / "model" / "m.onnx").string();
    std::ofstream out(path, std::ios::binary);
    model_.SerializeToOstream(&out);
    out.close();
    return importOnnxModel(path, options);
  }

  fs::path dir_;
  onnx::ModelProto model_;
};

TEST_F(OnnxImporterTest, ReadsExternalDataInsideTheModelDirectory) {
  std::vector<float> values = {1, 2, 3, 4};
  std::ofstream(dir_ / "model" / "weights.bin", std::ios::binary)
      .write(reinterpret_cast<const char *>(values.data()), 16);
  addExternalWeightsGraph("weights.bin");
  Expected<std::unique_ptr<Graph>> graph = import();
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  const Tensor &w = (*graph)->findValue("w")->constant();
  EXPECT_EQ(w.getDouble(3), 4.0);
}

TEST_F(OnnxImporterTest, RefusesExternalDataOutsideTheModelDirectory) {
  std::ofstream(dir_ / "secret.bin", std::ios::binary).write("0123456789abcdef", 16);
  addExternalWeightsGraph("../secret.bin");
  Expected<std::unique_ptr<Graph>> graph = import();
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.status().message().find("outside the model's directory"), std::string::npos)
      << graph.status().message();
}

TEST_F(OnnxImporterTest, SymbolicDimensionsNeedAShape) {
  addInput("tokens", {std::string("batch"), int64_t(8)});
  addNode("Relu", {"tokens"}, {"y"});
  addOutput("y");
  Expected<std::unique_ptr<Graph>> graph = import();
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.status().message().find("input 'tokens' has symbolic dimension 'batch' (dim 0)"),
            std::string::npos)
      << graph.status().message();
  ImportOptions options;
  options.inputShapes["tokens"] = {3, 8};
  graph = import(options);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  EXPECT_EQ((*graph)->inputs()[0]->type().shape, (Shape{3, 8}));
}

TEST_F(OnnxImporterTest, ListsEveryUnsupportedNode) {
  addInput("x", {int64_t(2), int64_t(2)});
  addNode("ImageDecoder", {"x"}, {"a"}, "decoder");
  addNode("Relu", {"a"}, {"b"}, "ok");
  addNode("NotAnOnnxOp", {"b"}, {"c"}, "unknown");
  addOutput("c");
  Expected<std::unique_ptr<Graph>> graph = import();
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().message(), "cannot compile 2 nodes:\n"
                                      "  node 'decoder' (ImageDecoder): operator not supported\n"
                                      "  node 'unknown' (NotAnOnnxOp): operator not supported");
}

TEST_F(OnnxImporterTest, MovesOldOpsetAttributesToInputs) {
  model_.mutable_opset_import(0)->set_version(12);
  addInput("x", {int64_t(2), int64_t(3)});
  auto *reduce = addNode("ReduceMean", {"x"}, {"m"});
  auto *axes = reduce->add_attribute();
  axes->set_name("axes");
  axes->set_type(onnx::AttributeProto::INTS);
  axes->add_ints(1);
  addOutput("m");
  Expected<std::unique_ptr<Graph>> graph = import();
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  const Node *node = (*graph)->findValue("m")->producer();
  EXPECT_FALSE(node->hasAttr("axes"));
  ASSERT_TRUE(node->hasInput(1));
  EXPECT_EQ(node->input(1)->constant().toInt64s(), (std::vector<int64_t>{1}));
}

TEST_F(OnnxImporterTest, RejectsOpsetsOutsideTheSupportedRange) {
  model_.mutable_opset_import(0)->set_version(25);
  addInput("x", {int64_t(2)});
  addNode("Relu", {"x"}, {"y"});
  addOutput("y");
  Expected<std::unique_ptr<Graph>> graph = import();
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().message(), "opset 25 is not supported (supported: 1 to 24)");
}

// Opset 6 broadcasting: B's dims match A's from `axis` on, which numpy's
// rules say with B unsqueezed at its end; consumed_inputs goes.
TEST_F(OnnxImporterTest, LegacyBroadcastBecomesNumpyBroadcasting) {
  model_.mutable_opset_import(0)->set_version(5);
  addInput("a", {int64_t(2), int64_t(3), int64_t(4), int64_t(5)});
  addInput("b", {int64_t(3)});
  onnx::NodeProto *add = addNode("Add", {"a", "b"}, {"y"});
  auto setInt = [&](const char *name, int64_t value) {
    onnx::AttributeProto *attr = add->add_attribute();
    attr->set_name(name);
    attr->set_type(onnx::AttributeProto::INT);
    attr->set_i(value);
  };
  setInt("broadcast", 1);
  setInt("axis", 1);
  onnx::AttributeProto *consumed = add->add_attribute();
  consumed->set_name("consumed_inputs");
  consumed->set_type(onnx::AttributeProto::INTS);
  consumed->add_ints(0);
  addOutput("y");
  Expected<std::unique_ptr<Graph>> graph = import();
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  const Node *node = (*graph)->findValue("y")->producer();
  EXPECT_FALSE(node->hasAttr("broadcast") || node->hasAttr("axis") ||
               node->hasAttr("consumed_inputs"));
  const Node *unsqueeze = node->input(1)->producer();
  ASSERT_TRUE(unsqueeze && unsqueeze->op() == "Unsqueeze");
  EXPECT_EQ(unsqueeze->input(0)->name(), "b");
  EXPECT_EQ(unsqueeze->input(1)->constant().toInt64s(), (std::vector<int64_t>{1, 2}));
}

} // namespace
} // namespace cuvil
