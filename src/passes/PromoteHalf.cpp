// promote-half: ops on f16 or bf16 values compute in f32, as ONNX Runtime's
// CPU provider does for the ops it has no half-precision kernel for:
//   y:f16 = Op(a:f16, b:i64)  ->  a32 = Cast(a, to=f32)
//                                 y32 = Op(a32, b)
//                                 y   = Cast(y32, to=f16)
// Each op rounds its results to the half type, so a chain of them keeps the
// model's per-op precision; constant half inputs are widened here, once.
// Kept as they are: Cast and CastLike (they convert), views (they move
// bytes), ops that read only their inputs' types (Shape, Size), and ops
// holding regions (their bodies are rewritten as graphs of their own).
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"

namespace cuvil {
namespace {

bool isHalf(const Value *value) {
  return value && value->hasType() &&
         (value->type().dtype == DType::F16 || value->type().dtype == DType::BF16);
}

bool promoted(const Node &node) {
  if (node.op() == "Cast" || node.op() == "CastLike" || node.numRegions() != 0)
    return false;
  const OpSchema *schema = OpRegistry::instance().find(node.op());
  if (!schema || schema->isView || schema->foldsFromTypes)
    return false;
  for (Value *input : node.inputs())
    if (isHalf(input))
      return true;
  return false;
}

Status promote(Graph &graph, Node &node) {
  std::vector<Value *> inputs;
  for (Value *input : node.inputs()) {
    if (!isHalf(input)) {
      inputs.push_back(input);
      continue;
    }
    // A constant is widened now: shape rules that read it (OneHot's depth)
    // still see a constant.
    if (input->isConstant()) {
      inputs.push_back(
          graph.addConstant(input->name() + ".f32", input->constant().castTo(DType::F32)));
      continue;
    }
    Expected<Value *> widened = insertCast(graph, input, DType::F32, &node, input->name() + ".f32");
    CUVIL_TRY(widened.status());
    inputs.push_back(*widened);
  }
  std::vector<std::string> names;
  for (Value *output : node.outputs())
    names.push_back(isHalf(output) ? output->name() + ".f32" : output->name());
  Node *wide = graph.addNode(node.op(), inputs, names, &node);
  wide->setName(node.name());
  for (const auto &[name, attribute] : node.attributes())
    wide->setAttr(name, attribute);
  CUVIL_TRY(inferNodeTypes(*wide));
  // Each result as the model typed it: the half ones rounded back.
  for (size_t i = 0; i < node.numOutputs(); ++i) {
    Value *result = wide->output(i);
    DType declared = node.output(i)->type().dtype;
    if (result->type().dtype != declared) {
      Expected<Value *> narrow = insertCast(graph, result, declared, &node, node.output(i)->name());
      CUVIL_TRY(narrow.status());
      result = *narrow;
    }
    graph.replaceAllUsesWith(node.output(i), result);
  }
  graph.eraseNode(&node);
  return Status::success();
}

} // namespace

Status runPromoteHalf(Graph &graph, PassContext &) {
  std::vector<Node *> work;
  for (const auto &node : graph.nodes())
    if (promoted(*node))
      work.push_back(node.get());
  for (Node *node : work) {
    std::string described = node->describe(); // the node is gone once promoted
    CUVIL_TRY(promote(graph, *node).withContext(described));
  }
  return Status::success();
}

} // namespace cuvil
