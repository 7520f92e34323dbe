// dce: erases nodes none of whose results is used or a graph output, then
// constants nothing uses. Walks backwards so chains die in one sweep.
#include "cuvil/passes/Passes.h"

#include <algorithm>

namespace cuvil {

Status runDeadCodeElimination(Graph &graph, PassContext &) {
  std::vector<Node *> nodes;
  for (const auto &node : graph.nodes())
    nodes.push_back(node.get());
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    Node *node = *it;
    bool dead = std::all_of(node->outputs().begin(), node->outputs().end(), [](Value *result) {
      return result->uses().empty() && !result->isGraphOutput();
    });
    if (dead)
      graph.eraseNode(node);
  }
  graph.eraseUnusedConstants();
  return Status::success();
}

} // namespace cuvil
