// constant-folding: evaluates every node whose inputs are all constants with
// the op's reference semantics, unless that would create a constant over
// 1 MiB and more than 4x its inputs (an Expand to a huge tensor stays a
// kernel). 4x lets 8-bit weights widened to f32 (a DequantizeLinear or Cast
// of them) fold at any size: the f32 weights are what the kernels and the
// weight packing read.
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"

namespace cuvil {
namespace {
constexpr size_t kMaxGrowthBytes = 1 << 20;
constexpr size_t kMaxGrowthFactor = sizeof(float) / sizeof(uint8_t);
} // namespace

Status runConstantFolding(Graph &graph, PassContext &) {
  std::vector<Node *> nodes;
  for (const auto &node : graph.nodes())
    nodes.push_back(node.get());
  for (Node *node : nodes)
    CUVIL_TRY(foldNode(graph, *node, kMaxGrowthBytes, kMaxGrowthFactor).status());
  graph.eraseUnusedConstants();
  return Status::success();
}

} // namespace cuvil
