// materialize-outputs: the runtime hands every graph output its own buffer,
// so each output must be written by a node of its own. An output that is a
// constant, a graph input, a view of one, or the same value as an earlier
// output gets an Identity (a copy) in front of it.
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"

#include <set>

namespace cuvil {
namespace {

// True when `value`'s bytes may live in a buffer that is not its own output
// buffer: constants, graph inputs, and views of either.
bool needsCopy(const Value *value) {
  while (true) {
    if (value->isConstant() || value->isGraphInput())
      return true;
    const Node *producer = value->producer();
    const OpSchema *schema = producer ? OpRegistry::instance().find(producer->op()) : nullptr;
    if (!schema || !schema->isView)
      return false;
    value = producer->input(0);
  }
}

} // namespace

Status runMaterializeOutputs(Graph &graph, PassContext &) {
  std::set<const Value *> seen;
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    Value *output = graph.outputs()[i];
    if (seen.insert(output).second && !needsCopy(output))
      continue;
    Node *copy = graph.addNode("Identity", {output}, {graph.outputName(i) + ".copy"});
    CUVIL_TRY(inferNodeTypes(*copy));
    graph.setOutput(i, copy->output(0));
  }
  return Status::success();
}

} // namespace cuvil
