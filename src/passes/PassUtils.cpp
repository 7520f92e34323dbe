#include "PassUtils.h"

#include <cstring>

namespace cuvil {

Status inferNodeTypes(Node &node) {
  const OpSchema *schema = OpRegistry::instance().find(node.op());
  if (!schema)
    return Status::error(fmt::format("{}: unknown op", node.describe()));
  CUVIL_TRY(schema->checkArity(node).withContext(node.describe()));
  for (Value *input : node.inputs())
    if (input && !input->hasType())
      return Status::error(
          fmt::format("{}: input %{} has no type", node.describe(), input->name()));
  InferContext context(node);
  CUVIL_TRY(schema->infer(context).withContext(node.describe()));
  // Dim arithmetic saturates instead of wrapping: a result this large is
  // one whose size overflowed (a Reshape or Expand to absurd dims).
  for (Value *result : node.outputs())
    if (result->hasType() && result->type().byteSize().max() >= kDimLimit)
      return Status::error(fmt::format("{}: result %{} of shape [{}] is larger than any tensor",
                                       node.describe(), result->name(),
                                       shapeToString(result->type().shape)));
  return Status::success();
}

bool hasFoldableInputs(const Node &node) {
  const OpSchema *schema = OpRegistry::instance().find(node.op());
  if (!schema || !schema->reference)
    return false;
  for (Value *input : node.inputs())
    if (input && !input->isConstant() &&
        !(schema->foldsFromTypes && input->hasType() && input->type().isStatic()))
      return false;
  return true;
}

namespace {

// Results whose dim values shape inference found to be constants (a
// Shape's static dims, arithmetic on them), as constants; nullopt if any
// result is not one.
std::optional<std::vector<Tensor>> constantDimValues(const Node &node) {
  std::vector<Tensor> constants;
  for (Value *result : node.outputs()) {
    const std::vector<Dim> *dims = result->dimValues();
    if (!dims || !result->hasType() || !isStatic(*dims) || !result->type().isStatic())
      return std::nullopt;
    constants.push_back(
        Tensor::fromInt64s(staticDims(*dims), result->type().shape, result->type().dtype));
  }
  return constants;
}

void replaceByConstants(Graph &graph, Node &node, std::vector<Tensor> constants) {
  for (size_t i = 0; i < node.numOutputs(); ++i) {
    Value *result = node.output(i);
    Value *constant = graph.addConstant(result->name(), std::move(constants[i]));
    graph.replaceAllUsesWith(result, constant);
  }
  graph.eraseNode(&node);
}

} // namespace

Expected<bool> foldNode(Graph &graph, Node &node, size_t maxBytes, size_t maxGrowth) {
  if (std::optional<std::vector<Tensor>> constants = constantDimValues(node)) {
    replaceByConstants(graph, node, std::move(*constants));
    return true;
  }
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
    if (!result->type().isStatic() || result->type().dtype == DType::String)
      return false; // a constant has a static shape, and holds no strings
    outputBytes += size_t(result->type().byteSize().constant());
    outputs.emplace_back(result->type());
  }
  if (outputBytes > maxBytes && outputBytes > maxGrowth * inputBytes)
    return false;
  CUVIL_TRY(schema->reference(node, inputs, outputs).withContext(node.describe()));
  replaceByConstants(graph, node, std::move(outputs));
  return true;
}

Expected<Value *> foldToConstant(Graph &graph, const std::string &op,
                                 const std::vector<Value *> &inputs,
                                 const std::vector<std::pair<std::string, Attribute>> &attributes,
                                 const std::string &name) {
  Node *node = graph.addNode(op, inputs, {name + ".unfolded"});
  for (const auto &[attribute, value] : attributes)
    node->setAttr(attribute, value);
  Status typed = inferNodeTypes(*node);
  const OpSchema *schema = OpRegistry::instance().find(op);
  std::vector<const Tensor *> constants;
  for (Value *input : inputs)
    constants.push_back(input && input->isConstant() ? &input->constant() : nullptr);
  std::vector<Tensor> results;
  if (typed.ok()) {
    results.emplace_back(node->output(0)->type());
    if (!schema->reference || !hasFoldableInputs(*node))
      typed = Status::error(fmt::format("internal error: cannot fold {}", node->describe()));
    else
      typed = schema->reference(*node, constants, results).withContext(node->describe());
  }
  graph.eraseNode(node);
  CUVIL_TRY(typed);
  return graph.addConstant(name, std::move(results[0]));
}

Status planForTarget(Node &node, const PassContext &context) {
  const OpSchema *schema = OpRegistry::instance().find(node.op());
  if (schema && schema->planForTarget)
    CUVIL_TRY(schema->planForTarget(node, context.cpu).withContext(node.describe()));
  return inferNodeTypes(node);
}

const ElementwiseFacts *elementwiseFacts(const Node &node) {
  const OpSchema *schema = OpRegistry::instance().find(node.op());
  return schema && schema->elementwise ? &*schema->elementwise : nullptr;
}

bool sameScalar(const Value *a, const Value *b) {
  if (!a || !b || !a->isConstant() || !b->isConstant() || a->type() != b->type() ||
      a->constant().numElements() != 1)
    return false;
  return std::memcmp(a->constant().bytes(), b->constant().bytes(), a->constant().byteSize()) == 0;
}

Node *soleUser(const Value *value) { return value->hasOneUse() ? value->uses()[0].node : nullptr; }

Value *otherOperand(const Node &node, const Value *value) {
  if (node.input(0) == value)
    return node.input(1);
  return node.input(1) == value ? node.input(0) : nullptr;
}

Node *columnBiasAdd(const Value *value) {
  Node *add = soleUser(value);
  const Value *bias = add && add->op() == "Add" ? otherOperand(*add, value) : nullptr;
  const Shape &out = value->type().shape;
  if (!bias || !bias->isConstant() || bias->type().dtype != DType::F32 ||
      bias->type().rank() != 1 || out.empty() || bias->type().shape[0] != out.back() ||
      add->output(0)->type().shape != out)
    return nullptr;
  return add;
}

Expected<Value *> cloneOnInputs(Graph &graph, const Node &node, const std::vector<Value *> &inputs,
                                Node *before, const std::string &name) {
  Node *clone = graph.addNode(node.op(), inputs, {name}, before);
  for (const auto &[attribute, value] : node.attributes())
    clone->setAttr(attribute, value);
  clone->setName(node.name());
  CUVIL_TRY(inferNodeTypes(*clone));
  return clone->output(0);
}

Expected<Value *> insertCast(Graph &graph, Value *value, DType dtype, Node *before,
                             const std::string &name) {
  if (value->hasType() && value->type().dtype == dtype)
    return value;
  Node *cast = graph.addNode("Cast", {value}, {name}, before);
  cast->setAttr("to", Attribute(int64_t(dtypeOnnxCode(dtype))));
  CUVIL_TRY(inferNodeTypes(*cast));
  return cast->output(0);
}

Value *addScalarConstant(Graph &graph, double value, DType dtype, const std::string &name) {
  Tensor t(TensorType{dtype, {}});
  t.setDouble(0, value);
  return graph.addConstant(graph.uniqueName(name), std::move(t));
}

std::vector<int64_t> knownInts(const Value *value) {
  if (value->isConstant())
    return value->constant().toInt64s();
  return staticDims(*value->dimValues());
}

Value *addInt64sConstant(Graph &graph, const std::vector<int64_t> &values,
                         const std::string &name) {
  return graph.addConstant(graph.uniqueName(name),
                           Tensor::fromInt64s(values, {int64_t(values.size())}));
}

Expected<Value *> insertNode(Graph &graph, const std::string &op,
                             const std::vector<Value *> &inputs, Node *before,
                             const std::string &name) {
  Node *node = graph.addNode(op, inputs, {name}, before);
  CUVIL_TRY(inferNodeTypes(*node));
  return node->output(0);
}

} // namespace cuvil
