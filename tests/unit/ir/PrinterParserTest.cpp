// The textual IR round-trips exactly: print(parse(print(g))) == print(g),
// with every attribute kind, constants inline and as hex, and storage.
#include "cuvil/ir/Parser.h"
#include "cuvil/ir/Printer.h"
#include "cuvil/ops/AllOps.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

namespace cuvil {
namespace {

std::unique_ptr<Graph> makeGraph() {
  auto graph = std::make_unique<Graph>("round trip");
  Value *x = graph->addInput("x:0", TensorType{DType::F32, {2, 3}});
  x->setStorage({StorageSpace::Input, 0, 0});
  std::vector<float> large(40);
  for (size_t i = 0; i < large.size(); ++i)
    large[i] = float(i) * 0.37f - 3.0f;
  large[3] = std::numeric_limits<float>::quiet_NaN();
  large[4] = -std::numeric_limits<float>::infinity();
  large[5] = std::numeric_limits<float>::denorm_min();
  Value *weights = graph->addConstant("w", Tensor::fromFloats(large, {40}));
  std::vector<float> small = {0.1f, -2.5e-8f, 3.4028235e38f};
  Value *bias = graph->addConstant("b", Tensor::fromFloats(small, {3}));
  Node *add = graph->addNode("Add", {x, bias}, {"sum"});
  add->setName("add \"1\"\n");
  add->output(0)->setType(TensorType{DType::F32, {2, 3}});
  add->output(0)->setStorage({StorageSpace::Arena, 0, 128});
  Node *split = graph->addNode("Split", {add->output(0)}, {"p0", "p1"});
  split->setAttr("axis", int64_t(-1));
  split->setAttr("num_outputs", int64_t(2));
  Node *leaky = graph->addNode("LeakyRelu", {weights}, {"lr"});
  leaky->setAttr("alpha", 0.1f);
  Node *fill = graph->addNode(
      "ConstantOfShape",
      {graph->addConstant("shape", Tensor::fromInt64s(std::vector<int64_t>{2, 2}, {2}))},
      {"filled"});
  fill->setAttr("value", Tensor::fromInt64s(std::vector<int64_t>{-7}, {1}, DType::I32));
  graph->addOutput(split->output(1), "second half");
  graph->addOutput(leaky->output(0));
  graph->addOutput(fill->output(0));
  return graph;
}

TEST(PrinterParser, RoundTripIsExact) {
  registerAllOps();
  std::unique_ptr<Graph> graph = makeGraph();
  std::string first = printGraph(*graph);
  Expected<std::unique_ptr<Graph>> parsed = parseGraph(first);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message() << "\n" << first;
  EXPECT_EQ(printGraph(**parsed), first);
}

TEST(PrinterParser, ConstantsKeepEveryBit) {
  std::unique_ptr<Graph> graph = makeGraph();
  Expected<std::unique_ptr<Graph>> parsed = parseGraph(printGraph(*graph));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  for (const char *name : {"w", "b"}) {
    const Tensor &original = graph->findValue(name)->constant();
    const Tensor &copy = (*parsed)->findValue(name)->constant();
    EXPECT_TRUE(original.sameContents(copy)) << name;
  }
}

TEST(PrinterParser, KeepsNamesAttributesAndStorage) {
  Expected<std::unique_ptr<Graph>> parsed = parseGraph(printGraph(*makeGraph()));
  ASSERT_TRUE(parsed.ok());
  const Graph &graph = **parsed;
  EXPECT_EQ(graph.name(), "round trip");
  EXPECT_EQ(graph.outputName(0), "second half");
  const Value *sum = graph.findValue("sum");
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->producer()->name(), "add \"1\"\n");
  EXPECT_EQ(sum->storage(), (Storage{StorageSpace::Arena, 0, 128}));
  EXPECT_EQ(graph.findValue("x:0")->storage(), (Storage{StorageSpace::Input, 0, 0}));
  const Node *split = graph.findValue("p0")->producer();
  EXPECT_EQ(split->getInt("axis", 0), -1);
  EXPECT_FALSE(graph.findValue("p0")->hasType());
  EXPECT_FLOAT_EQ(graph.findValue("lr")->producer()->getFloat("alpha", 0), 0.1f);
}

TEST(PrinterParser, ReportsPositions) {
  Expected<std::unique_ptr<Graph>> parsed =
      parseGraph("graph @g(%x: f32[2]) {\n  %y = Relu(%x : f32[2]\n}");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), "2:16: expected ',' or ')'");
  parsed = parseGraph("graph @g(%x: q7[2]) {\n return %x\n}");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), "1:14: unknown element type 'q7'");
}

} // namespace
} // namespace cuvil
