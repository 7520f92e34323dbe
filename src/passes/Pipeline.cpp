#include "cuvil/passes/Pipeline.h"

#include "cuvil/ir/Printer.h"
#include "cuvil/ir/Verifier.h"
#include "cuvil/passes/Passes.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace cuvil {
namespace {

// The compilation pipeline, in order. Every entry has a lit test in
// tests/lit/passes/<name>.cir.
constexpr std::array<PassInfo, 19> kPipeline = {{
    {"shape-inference", "type every value; evaluate small constant subgraphs", runShapeInference,
     RegionScope::Itself},
    {"promote-half", "compute f16 and bf16 ops in f32, rounding each result back", runPromoteHalf},
    {"fold-batchnorm", "merge BatchNormalization into the preceding Conv", runFoldBatchNorm},
    {"crop-conv-taps", "drop Conv kernel taps that only ever read padding", runCropConvTaps},
    {"canonicalize", "rewrite Gemm, BatchNormalization, Identity, Dropout into core ops",
     runCanonicalize},
    {"fuse-qdq", "run pre-quantized (QDQ) Conv and MatMul on the integer kernels", runFuseQdq},
    {"constant-folding", "evaluate nodes whose inputs are all constants", runConstantFolding},
    {"assign-precision", "run Conv and MatMul on integer kernels where --precision says",
     runAssignPrecision},
    {"fuse-epilogues", "fuse bias, residual Add and activation into Conv/MatMul", runFuseEpilogues},
    {"fuse-attention", "run MatMul-Softmax-MatMul attention without its score matrix",
     runFuseAttention},
    {"layout-nchwc", "move convolutional regions to the blocked NCHWc layout", runLayoutNCHWc},
    {"pack-matmul", "pack constant MatMul weights into GEMM panels", runPackMatMul},
    // The layout pass leaves plain copies of blocked results that nothing
    // reads any more; as users they would stop elementwise chains.
    {"dce", "erase nodes and constants nothing uses", runDeadCodeElimination},
    {"fuse-elementwise", "run chains of elementwise ops in one pass", runFuseElementwise},
    {"dce", "erase nodes and constants nothing uses", runDeadCodeElimination},
    {"fuse-inverted-residual", "run expand-depthwise-project conv chains in one pass",
     runFuseInvertedResidual},
    {"materialize-outputs", "give every graph output a node writing it", runMaterializeOutputs},
    {"dce", "erase nodes and constants nothing uses", runDeadCodeElimination},
    {"plan-memory", "assign arena offsets by liveness", runPlanMemory, RegionScope::Itself},
}};

} // namespace

std::span<const PassInfo> defaultPipeline() { return kPipeline; }

const PassInfo *findPass(std::string_view name) {
  for (const PassInfo &pass : kPipeline)
    if (pass.name == name)
      return &pass;
  return nullptr;
}

std::vector<std::string_view> passNames() {
  std::vector<std::string_view> names;
  for (const PassInfo &pass : kPipeline)
    if (std::find(names.begin(), names.end(), pass.name) == names.end())
      names.push_back(pass.name);
  return names;
}

namespace {

// Runs `pass` on every region of the graph's nodes (innermost first), then
// on the graph.
Status runOnEachGraph(const PassInfo &pass, Graph &graph, PassContext &context) {
  std::vector<Node *> holders;
  for (const auto &node : graph.nodes())
    if (node->numRegions() != 0)
      holders.push_back(node.get());
  for (Node *node : holders)
    for (size_t r = 0; r < node->numRegions(); ++r)
      CUVIL_TRY(
          runOnEachGraph(pass, node->region(r), context)
              .withContext(fmt::format("{}, region '{}'", node->describe(), node->regionName(r))));
  return pass.run(graph, context);
}

} // namespace

Status runPasses(Graph &graph, std::span<const PassInfo *const> passes, PassContext &context,
                 const PipelineOptions &options) {
  for (const PassInfo *pass : passes) {
    Status status = pass->regions == RegionScope::Itself ? pass->run(graph, context)
                                                         : runOnEachGraph(*pass, graph, context);
    CUVIL_TRY(status.withContext(fmt::format("in pass {}", pass->name)));
    if (options.verifyEach)
      CUVIL_TRY(
          verifyGraph(graph).withContext(fmt::format("IR invalid after pass {}", pass->name)));
    bool print = options.printAfterAll || options.printAfter.count(pass->name);
    if (print && options.printStream) {
      *options.printStream << "// ----- IR after " << pass->name << " -----\n";
      printGraph(graph, *options.printStream, PrintOptions{/*elideLargeConstants=*/true});
    }
  }
  return Status::success();
}

} // namespace cuvil
