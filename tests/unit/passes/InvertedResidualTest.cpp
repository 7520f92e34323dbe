// fuse-inverted-residual against the ops it replaces: a MobileNetV2 block
// (1x1 expansion + ReLU6, 3x3 depthwise + ReLU6, 1x1 projection + residual)
// evaluated by the op references before and after the pass. This checks the
// fused op's reference (the e2e tests check its kernel against ONNX Runtime)
// and that the pass wires every weight, bias, activation and channel count.
// Too large for textual IR: the block fuses only when its expanded tensors
// exceed L2.
#include "cuvil/ir/OpSchema.h"
#include "cuvil/ops/AllOps.h"
#include "cuvil/passes/Passes.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace cuvil {
namespace {

Value *randomConstant(Graph &graph, const std::string &name, Shape shape, std::mt19937 &rng) {
  std::normal_distribution<float> normal(0.0f, 0.3f);
  std::vector<float> values(size_t(TensorType{DType::F32, shape}.numElements().constant()));
  for (float &v : values)
    v = normal(rng);
  return graph.addConstant(name, Tensor::fromFloats(values, shape));
}

// A block of `channels` -> `expanded` -> `channels` on a 1 x channels x H x W
// constant input, with the residual Add; or, as a network's stem, a 3x3
// stride-2 expansion of a 3-channel 2H x 2W image. Returns the result.
Value *buildBlock(Graph &graph, int64_t channels, int64_t expanded, int64_t height, int64_t width,
                  bool stem) {
  std::mt19937 rng(7);
  int64_t in = stem ? 3 : channels, k = stem ? 3 : 1, scale = stem ? 2 : 1;
  Value *x = randomConstant(graph, "x", {1, in, height * scale, width * scale}, rng);
  Value *lo = graph.addConstant("lo", Tensor::scalarF32(0.0f));
  Value *hi = graph.addConstant("hi", Tensor::scalarF32(6.0f));
  auto conv = [&](Value *input, Value *w, Value *b, const std::string &name, int64_t group,
                  int64_t stride) {
    Node *node = graph.addNode("Conv", {input, w, b}, {name});
    int64_t size = w->type().shape[2].constant();
    node->setAttr("kernel_shape", std::vector<int64_t>{size, size});
    node->setAttr("pads", std::vector<int64_t>(4, size / 2));
    node->setAttr("strides", std::vector<int64_t>{stride, stride});
    node->setAttr("group", group);
    return node->output(0);
  };
  auto relu6 = [&](Value *input, const std::string &name) {
    return graph.addNode("Clip", {input, lo, hi}, {name})->output(0);
  };
  Value *e = relu6(conv(x, randomConstant(graph, "we", {expanded, in, k, k}, rng),
                        randomConstant(graph, "be", {expanded}, rng), "e", 1, scale),
                   "er");
  Value *d = relu6(conv(e, randomConstant(graph, "wd", {expanded, 1, 3, 3}, rng),
                        randomConstant(graph, "bd", {expanded}, rng), "d", expanded, 1),
                   "dr");
  Value *p = conv(d, randomConstant(graph, "wp", {channels, expanded, 1, 1}, rng),
                  randomConstant(graph, "bp", {channels}, rng), "p", 1, 1);
  return stem ? p : graph.addNode("Add", {p, x}, {"y"})->output(0);
}

// The graph's single output by the op references, node by node.
Tensor evaluate(const Graph &graph) {
  std::map<const Value *, Tensor> values;
  for (const Value *c : graph.constants())
    values.emplace(c, c->constant());
  for (const auto &node : graph.nodes()) {
    std::vector<const Tensor *> in;
    for (const Value *v : node->inputs())
      in.push_back(v ? &values.at(v) : nullptr);
    std::vector<Tensor> out;
    for (const Value *v : node->outputs())
      out.emplace_back(v->type());
    const OpSchema *schema = OpRegistry::instance().find(node->op());
    EXPECT_TRUE(schema && schema->reference) << node->op();
    EXPECT_TRUE(schema->reference(*node, in, out).ok()) << node->describe();
    for (size_t i = 0; i < out.size(); ++i)
      values.emplace(node->output(i), std::move(out[i]));
  }
  return values.at(graph.outputs()[0]);
}

// The pipeline up to fuse-inverted-residual, without constant folding (the
// input is a constant so that the references can run the graph).
std::pair<Tensor, int> runBlock(bool fuse, bool stem) {
  registerAllOps();
  Graph graph;
  // 24 -> 144 channels (blocks of 16: 2, the last half padding, and 9) on
  // 58x50: 1.7 MB expanded, 4 row parts of 15 rows, bands of 3. The stem:
  // 3 channels at 116x100 -> 96 (1.1 MB) -> 24.
  graph.addOutput(stem ? buildBlock(graph, 24, 96, 58, 50, true)
                       : buildBlock(graph, 24, 144, 58, 50, false));
  PassContext context;
  for (PassFn pass : {runShapeInference, runFuseEpilogues, runLayoutNCHWc, runDeadCodeElimination})
    EXPECT_TRUE(pass(graph, context).ok());
  if (fuse) {
    EXPECT_TRUE(runFuseInvertedResidual(graph, context).ok());
  }
  int fused = 0;
  for (const auto &node : graph.nodes())
    fused += node->op() == "cuvil.InvertedResidualNCHWc";
  return {evaluate(graph), fused};
}

void expectFusedMatchesSeparate(bool stem) {
  auto [separate, none] = runBlock(false, stem);
  auto [fused, one] = runBlock(true, stem);
  EXPECT_EQ(none, 0);
  ASSERT_EQ(one, 1);
  ASSERT_EQ(separate.type(), fused.type());
  double worst = 0;
  for (int64_t i = 0; i < separate.numElements(); ++i)
    worst = std::max(worst, std::abs(separate.getDouble(i) - fused.getDouble(i)));
  EXPECT_LT(worst, 1e-4);
}

TEST(FuseInvertedResidual, FusedReferenceMatchesTheSeparateOps) {
  expectFusedMatchesSeparate(false);
}

TEST(FuseInvertedResidual, StemExpansionMatchesTheSeparateOps) { expectFusedMatchesSeparate(true); }

} // namespace
} // namespace cuvil
