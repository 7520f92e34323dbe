// Which 3x3 convolutions the NCHWc layout pass turns into Winograd: those
// whose saved flops outweigh streaming 4x the weights (too large to test as
// textual IR, hence here rather than in lit).
#include "cuvil/ops/AllOps.h"
#include "cuvil/passes/Passes.h"

#include <gtest/gtest.h>

namespace cuvil {
namespace {

// The op the pass makes of a 3x3 stride-1 "same" convolution of `channels`
// channels in and out on a height x width image.
std::string convOpAfterLayout(int64_t channels, int64_t height, int64_t width) {
  registerAllOps();
  Graph graph;
  TensorType image{DType::F32, {1, channels, height, width}};
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

// Per channel pair Winograd saves 2 (9 OH OW - 36 tiles) flops and streams
// 27 x 4 more weight bytes, worth 12 flops each: it must save > 1296.
TEST(WinogradChoice, ResNetLayer3SavesMoreThanItsWeightsCost) {
  // 14x14, 16 tiles: saves 2 (1764 - 576) = 2376 per pair (9 MiB of weights).
  EXPECT_EQ(convOpAfterLayout(256, 14, 14), "cuvil.ConvWinograd");
}

TEST(WinogradChoice, ResNetLayer4StaysDirect) {
  // 7x7, 4 tiles: saves 2 (441 - 144) = 594 per pair.
  EXPECT_EQ(convOpAfterLayout(512, 7, 7), "cuvil.ConvNCHWc");
}

TEST(WinogradChoice, TilesMostlyPaddingStayDirect) {
  // 16 tiles each way; 2 rows save 2 (1152 - 576) = 1152, 4 rows 3456.
  EXPECT_EQ(convOpAfterLayout(64, 2, 64), "cuvil.ConvNCHWc");
  EXPECT_EQ(convOpAfterLayout(64, 4, 64), "cuvil.ConvWinograd");
}

TEST(WinogradChoice, TooFewTiles) {
  // 3 x 3 tiles.
  EXPECT_EQ(convOpAfterLayout(64, 12, 12), "cuvil.ConvNCHWc");
}

} // namespace
} // namespace cuvil
