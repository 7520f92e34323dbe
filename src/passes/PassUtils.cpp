#include "PassUtils.h"

namespace cuvil {

Status inferNodeTypes(Node &node) {
  const OpSchema *schema = OpRegistry::instance().find(node.op());
  if (!schema)
    return Status::error(fmt::format("{}: unknown op", node.describe()));
  for (Value *input : node.inputs())
    if (input && !input->hasType())
      return Status::error(
          fmt::format("{}: input %{} has no type", node.describe(), input->name()));
  InferContext context(node);
  return schema->infer(context).withContext(node.describe());
}

bool hasFoldableInputs(const Node &node) {
  const OpSchema *schema = OpRegistry::instance().find(node.op());
  if (!schema || !schema->reference)
    return false;
  for (Value *input : node.inputs())
    if (input && !input->isConstant() && !(schema->foldsFromTypes && input->hasType()))
      return false;
  return true;
}

Expected<bool> foldNode(Graph &graph, Node &node, size_t maxBytes) {
  const OpSchema *schema = OpRegistry::instance().find(node.op());
  if (!schema || !schema->reference || !hasFoldableInputs(node))
    return false;
  size_t inputBytes = 0, outputBytes = 0;
  std::vector<const Tensor *> inputs;
  for (Value *input : node.inputs()) {
    inputs.push_back(input && input->isConstant() ? &input->constant() : nullptr);
    if (input && input->isConstant())
      inputBytes += input->constant().byteSize();
  }
  std::vector<Tensor> outputs;
  for (Value *result : node.outputs()) {
    if (!result->hasType())
      return false;
    outputBytes += result->type().byteSize();
    outputs.emplace_back(result->type());
  }
  if (outputBytes > maxBytes && outputBytes > inputBytes)
    return false;
  CUVIL_TRY(schema->reference(node, inputs, outputs).withContext(node.describe()));
  for (size_t i = 0; i < node.numOutputs(); ++i) {
    Value *result = node.output(i);
    Value *constant = graph.addConstant(result->name(), std::move(outputs[i]));
    graph.replaceAllUsesWith(result, constant);
  }
  graph.eraseNode(&node);
  return true;
}

Expected<Value *> insertNode(Graph &graph, const std::string &op,
                             const std::vector<Value *> &inputs, Node *before,
                             const std::string &name) {
  Node *node = graph.addNode(op, inputs, {name}, before);
  CUVIL_TRY(inferNodeTypes(*node));
  return node->output(0);
}

} // namespace cuvil
