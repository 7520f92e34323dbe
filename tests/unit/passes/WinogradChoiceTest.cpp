// Which 3x3 convolutions the NCHWc layout pass turns into Winograd: with few
// output tiles, only those whose transformed weights stay cached (too large
// to test as textual IR, hence here rather than in lit).
#include "cuvil/ops/AllOps.h"
#include "cuvil/passes/Passes.h"

#include <gtest/gtest.h>

namespace cuvil {
namespace {

// The op the pass makes of a 3x3 stride-1 "same" convolution of `channels`
// channels in and out on a size x size image.
std::string convOpAfterLayout(int64_t channels, int64_t size) {
  registerAllOps();
  Graph graph;
  TensorType image{DType::F32, {1, channels, size, size}};
  Value *x = graph.addInput("x", image);
  Value *w = graph.addConstant("w", Tensor(TensorType{DType::F32, {channels, channels, 3, 3}}));
  Node *conv = graph.addNode("Conv", {x, w}, {"y"});
  conv->setAttr("kernel_shape", std::vector<int64_t>{3, 3});
  conv->setAttr("pads", std::vector<int64_t>{1, 1, 1, 1});
  graph.addOutput(conv->output(0));
  PassContext context;
  EXPECT_TRUE(runShapeInference(graph, context).ok());
  EXPECT_TRUE(runLayoutNCHWc(graph, context).ok());
  std::string op;
  for (const auto &node : graph.nodes())
    if (node->op().rfind("cuvil.Conv", 0) == 0)
      op = node->op();
  return op;
}

TEST(WinogradChoice, FewTilesWithCachedWeights) {
  // 16 tiles of 4x4; 64 x 64 x 36 transformed weights: 0.6 MiB.
  EXPECT_EQ(convOpAfterLayout(64, 16), "cuvil.ConvWinograd");
}

TEST(WinogradChoice, FewTilesWithStreamedWeightsStayDirect) {
  // 16 tiles; 256 x 256 x 36 transformed weights: 9 MiB.
  EXPECT_EQ(convOpAfterLayout(256, 16), "cuvil.ConvNCHWc");
}

TEST(WinogradChoice, ManyTilesAmortiseLargeWeights) {
  // 64 tiles; 9 MiB of transformed weights.
  EXPECT_EQ(convOpAfterLayout(256, 32), "cuvil.ConvWinograd");
}

TEST(WinogradChoice, TooFewTiles) {
  // 3 x 3 tiles.
  EXPECT_EQ(convOpAfterLayout(64, 12), "cuvil.ConvNCHWc");
}

} // namespace
} // namespace cuvil
