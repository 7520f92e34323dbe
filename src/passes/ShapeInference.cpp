// shape-inference: types every value in graph order. Shapes are static, so a
// node whose inputs are all known (Shape of a typed value, arithmetic on
// constants...) is evaluated on the spot when its result is small: later
// shape rules (Reshape, Slice, Expand...) then see constants, as in ONNX's
// data propagation.
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"

namespace cuvil {
namespace {
// Results up to this size are folded while inferring; larger constant
// subgraphs are left to constant-folding.
constexpr size_t kPropagateBytes = 4096;
} // namespace

Status runShapeInference(Graph &graph, PassContext &) {
  std::vector<Node *> nodes;
  for (const auto &node : graph.nodes())
    nodes.push_back(node.get());
  for (Node *node : nodes) {
    CUVIL_TRY(inferNodeTypes(*node));
    Expected<bool> folded = foldNode(graph, *node, kPropagateBytes);
    CUVIL_TRY(folded.status());
  }
  graph.eraseUnusedConstants();
  return Status::success();
}

} // namespace cuvil
