// The lowering interface checks every kernel call against the kernel's
// declaration before any code is generated: a wrong argument count, an
// argument of the wrong kind, a buffer of the wrong element size or a
// constant the kernel would write, a parameter block of another type, and a
// register tile the kernel does not instantiate are one error naming the
// node, the kernel and every problem.
#include "Kernels.h"
#include "cuvil/kernels/Conv.h"
#include "cuvil/kernels/Gemm.h"
#include "cuvil/kernels/Pool.h"
#include "cuvil/kernels/Regex.h"
#include "cuvil/lowering/Lowering.h"
#include "cuvil/ops/AllOps.h"
#include "cuvil/passes/Passes.h"

#include <gtest/gtest.h>

namespace cuvil {
namespace {

using ops::kConvNCHWcKernels;

// Records the calls that pass the check instead of generating code.
class RecordingContext final : public LoweringContext {
public:
  bool storedAt(const Value *, const Value *, uint64_t) const override { return false; }
  Status storeDims(const Value *, std::span<const Dim>) override { return Status::success(); }
  Status assignSymbol(SymbolId, const Dim &) override { return Status::success(); }
  const CpuModel &cpu() const override { return cpu_; }
  // Control flow lowers the regions' calls in place: both branches, one
  // iteration.
  Status lowerRegion(const Graph &region) override {
    for (const auto &node : region.nodes())
      CUVIL_TRY(lowerNode(*node, *this));
    return Status::success();
  }
  Status emitIf(const Value *, const std::function<Status()> &thenPart,
                const std::function<Status()> &elsePart) override {
    CUVIL_TRY(thenPart());
    return elsePart();
  }
  Status emitLoop(SymbolId, const Dim &, const Value *, const std::function<Status()> &body,
                  std::optional<SymbolId>) override {
    return body();
  }
  std::vector<std::string> calls;

protected:
  Status emitKernelCall(const KernelRef &kernel, std::vector<KernelArg>, const Dim &,
                        const Dim &) override {
    calls.push_back(kernel.name());
    return Status::success();
  }

private:
  CpuModel cpu_ = *cpuModelFor("x86-64-v4");
};

// A blocked convolution's operands: x [1, 1, 4, 4, 16], packed 1x1 weights
// and the result.
struct ConvOperands {
  Graph graph;
  Value *x, *w, *y;
  Node *node;
  ConvOperands() {
    x = graph.addInput("x", TensorType{DType::F32, {1, 1, 4, 4, 16}});
    w = graph.addConstant("w", Tensor(TensorType{DType::F32, {1, 1, 1, 1, 16, 16}}));
    node = graph.addNode("test.Conv", {x, w}, {"y"});
    node->setName("conv1");
    y = node->output(0);
    y->setType(x->type());
  }
};

cuvil_conv_nchwc_params convParams(cuvil_tile tile) {
  cuvil_conv_nchwc_params p{};
  p.groups = p.OCB = p.input_blocks = 1;
  p.window = {4, 4, 4, 4, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
  p.tile = tile;
  p.last_group_channels = 16;
  p.groups_per_step = p.rows_per_run = 1;
  return p;
}

// A lowering with two mistakes: no residual pointer (5 arguments for 6) and
// a 20 x 4 tile (the kernel instantiates at most 14 pixels).
Status lowerWithTwoMistakes(const Node &node, LoweringContext &ctx) {
  return ctx.callKernel(kConvNCHWcKernels.block16,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
                         KernelArg::optionalPointer(nullptr), KernelArg::pointer(node.output(0)),
                         KernelArg::params(convParams({20, 4}))},
                        4);
}

TEST(KernelCall, WrongArgumentCountAndMissingTileAreOneError) {
  registerAllOps();
  LoweringRegistry::instance().add("test.Conv", lowerWithTwoMistakes);
  ConvOperands conv;
  RecordingContext ctx;
  Status status = lowerNode(*conv.node, ctx);
  ASSERT_FALSE(status.ok());
  const std::string &message = status.message();
  EXPECT_NE(message.find("test.Conv node 'conv1'"), std::string::npos) << message;
  EXPECT_NE(message.find("kernel cuvil_conv_nchw16c_f32"), std::string::npos) << message;
  EXPECT_NE(message.find("takes 6 arguments before its task range, the lowering passed 5"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("register tile 20 x 4 is not instantiated for 16-channel blocks"),
            std::string::npos)
      << message;
  EXPECT_TRUE(ctx.calls.empty()); // nothing was generated
}

TEST(KernelCall, NamesEveryArgumentOfTheWrongKind) {
  registerAllOps();
  ConvOperands conv;
  Value *indices = conv.graph.addInput("i", TensorType{DType::I64, {16}});
  RecordingContext ctx;
  cuvil_pool_params pool{};
  Status status = ctx.callKernel(
      kConvNCHWcKernels.block8,
      {KernelArg::pointer(indices), KernelArg::constant(3), KernelArg::optionalPointer(nullptr),
       KernelArg::optionalPointer(nullptr), KernelArg::pointer(conv.w), KernelArg::params(pool)},
      1);
  ASSERT_FALSE(status.ok());
  const std::string &message = status.message();
  for (const char *expected :
       {"argument 0 must be const float *, the lowering passed %i of i64 (8-byte elements)",
        "argument 1 must be const float *, the lowering passed an int64_t",
        "argument 4 is written by the kernel, but %w is a constant",
        "argument 5 must be cuvil_conv_nchwc_params, the lowering passed a cuvil_pool_params "
        "block"})
    EXPECT_NE(message.find(expected), std::string::npos) << expected << "\nin: " << message;
}

// Tables the compiler computes go to read-only buffers of their element size.
TEST(KernelCall, ConstantTablesMatchTheirBuffersElementSize) {
  registerAllOps();
  Graph graph;
  Value *x = graph.addInput("s", TensorType{DType::String, {3}});
  Value *y = graph.addInput("m", TensorType{DType::Bool, {3}});
  RecordingContext ctx;
  const std::vector<int32_t> program = {CUVIL_REGEX_MATCH, 0, 0, 0};
  const std::vector<uint32_t> ranges = {1, 0};
  cuvil_regex_params params{1, 0};
  Status status = ctx.callKernel(
      ops::kRegexFullMatchKernel,
      {KernelArg::pointer(x), KernelArg::table(std::vector<int64_t>{0}), KernelArg::table(ranges),
       KernelArg::table(std::vector<uint8_t>{0}), KernelArg::params(params)},
      3);
  ASSERT_FALSE(status.ok());
  for (const char *expected : {"argument 1 must be const int32_t *, the lowering passed a constant "
                               "table of 8-byte elements",
                               "argument 3 must be uint8_t *, the lowering passed a constant table "
                               "of 1-byte elements"})
    EXPECT_NE(status.message().find(expected), std::string::npos)
        << expected << "\nin: " << status.message();
  EXPECT_TRUE(
      ctx.callKernel(ops::kRegexFullMatchKernel,
                     {KernelArg::pointer(x), KernelArg::table(program), KernelArg::table(ranges),
                      KernelArg::pointer(y), KernelArg::params(params)},
                     3)
          .ok());
}

TEST(KernelCall, AWellFormedCallIsEmitted) {
  registerAllOps();
  ConvOperands conv;
  RecordingContext ctx;
  ASSERT_TRUE(
      ctx.callKernel(kConvNCHWcKernels.block16,
                     {KernelArg::pointer(conv.x), KernelArg::pointer(conv.w),
                      KernelArg::optionalPointer(nullptr), KernelArg::optionalPointer(nullptr),
                      KernelArg::pointer(conv.y), KernelArg::params(convParams({4, 1}))},
                     4)
          .ok());
  EXPECT_EQ(ctx.calls, std::vector<std::string>{"cuvil_conv_nchw16c_f32"});
}

TEST(KernelCall, SignatureComesFromThePrototype) {
  KernelRef gemm = CUVIL_KERNEL_REF(cuvil_gemm_f32);
  ASSERT_EQ(gemm.params().size(), 6u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(gemm.params()[i].kind, KernelParam::Kind::Buffer);
    EXPECT_EQ(gemm.params()[i].elementBytes, sizeof(float));
    EXPECT_EQ(gemm.params()[i].writable, i == 4); // c
  }
  EXPECT_EQ(gemm.params()[5].kind, KernelParam::Kind::Block);
  EXPECT_EQ(gemm.params()[5].type, "cuvil_gemm_params");
  EXPECT_EQ(gemm.params()[5].blockBytes, sizeof(cuvil_gemm_params));
}

// Every lowering of a small network's ops, after the pipeline's rewrites,
// agrees with its kernels' declarations (the e2e tests then run the code).
TEST(KernelCall, PipelineLoweringsPassTheCheck) {
  registerAllOps();
  Graph graph;
  Value *x = graph.addInput("x", TensorType{DType::F32, {1, 3, 32, 32}});
  auto constant = [&](const std::string &name, Shape shape) {
    std::vector<float> values(size_t(numElements(shape).constant()), 0.01f);
    return graph.addConstant(name, Tensor::fromFloats(values, shape));
  };
  auto conv = [&](Value *in, Value *w, const std::string &name, int64_t group, int64_t pad) {
    Node *node = graph.addNode("Conv", {in, w}, {name});
    int64_t k = w->type().shape[2].constant();
    node->setAttr("kernel_shape", std::vector<int64_t>{k, k});
    node->setAttr("pads", std::vector<int64_t>(4, pad));
    node->setAttr("group", group);
    return graph.addNode("Relu", {node->output(0)}, {name + ".relu"})->output(0);
  };
  Value *c1 = conv(x, constant("w1", {32, 3, 3, 3}), "c1", 1, 1);
  Value *c2 = conv(c1, constant("w2", {32, 32, 3, 3}), "c2", 1, 1);
  Value *c3 = conv(c2, constant("w3", {32, 1, 3, 3}), "c3", 32, 1);
  Node *pool = graph.addNode("GlobalAveragePool", {c3}, {"pool"});
  Node *flat = graph.addNode("Flatten", {pool->output(0)}, {"flat"});
  Node *fc = graph.addNode("MatMul", {flat->output(0), constant("fc", {32, 10})}, {"logits"});
  Node *soft = graph.addNode("Softmax", {fc->output(0)}, {"probs"});
  graph.addOutput(soft->output(0));
  PassContext context;
  for (PassFn pass : {runShapeInference, runCanonicalize, runConstantFolding, runFuseEpilogues,
                      runLayoutNCHWc, runPackMatMul, runFuseElementwise, runDeadCodeElimination})
    ASSERT_TRUE(pass(graph, context).ok());
  RecordingContext ctx;
  for (const auto &node : graph.nodes()) {
    Status status = lowerNode(*node, ctx);
    EXPECT_TRUE(status.ok()) << status.message();
  }
  EXPECT_GE(ctx.calls.size(), 6u);
}

} // namespace
} // namespace cuvil
