// constant-folding: evaluates every node whose inputs are all constants with
// the op's reference semantics, unless that would create a constant much
// larger than its inputs (an Expand to a huge tensor stays a kernel).
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"

namespace cuvil {
namespace {
constexpr size_t kMaxGrowthBytes = 1 << 20;
} // namespace

Status runConstantFolding(Graph &graph, PassContext &) {
  std::vector<Node *> nodes;
  for (const auto &node : graph.nodes())
    nodes.push_back(node.get());
  for (Node *node : nodes)
    CUVIL_TRY(foldNode(graph, *node, kMaxGrowthBytes).status());
  graph.eraseUnusedConstants();
  return Status::success();
}

} // namespace cuvil
