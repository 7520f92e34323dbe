// fuse-elementwise: a chain of f32 elementwise ops (those with
// ElementwiseFacts), each the only user of the previous one's result,
// becomes one cuvil.ElementwiseChain that reads its input and writes its
// result once:
//   y = tanh(x * a + b)   (Mul, Add, Tanh: three passes)  =>  one pass
// The value flowing along the chain keeps the result's shape; each binary
// step's other operand (at most 4 per chain) may broadcast.
#include "PassUtils.h"

#include "cuvil/ir/Broadcast.h"
#include "cuvil/passes/Passes.h"

#include <algorithm>
#include <set>

namespace cuvil {
namespace {

// The chain kernel's program holds this many steps (cuvil.ElementwiseChain's
// shape rule refuses more).
constexpr size_t kMaxSteps = 32;

struct StepInfo {
  Value *operand = nullptr; // binary steps
  bool operandFirst = false;
  std::vector<float> params; // unary steps
};

// The step `node` applies to the chain value `v`, if it is a fusable f32
// elementwise op whose result has v's type.
std::optional<StepInfo> stepOf(const Node &node, const Value *v) {
  const ElementwiseFacts *facts = elementwiseFacts(node);
  const TensorType &type = v->type();
  if (!facts || node.numOutputs() != 1 || node.output(0)->type() != type ||
      type.dtype != DType::F32)
    return std::nullopt;
  if (facts->arity == ElementwiseFacts::Arity::Unary) {
    if (node.input(0) != v)
      return std::nullopt;
    std::optional<std::vector<float>> params =
        elementwiseParams(node, *OpRegistry::instance().find(node.op()));
    if (!params)
      return std::nullopt;
    return StepInfo{nullptr, false, std::move(*params)};
  }
  if ((node.input(0) == v) == (node.input(1) == v))
    return std::nullopt;
  Value *other = otherOperand(node, v);
  Expected<Shape> broadcast = broadcastShapes(other->type().shape, type.shape);
  if (other->type().dtype != DType::F32 || !broadcast || *broadcast != type.shape)
    return std::nullopt;
  return StepInfo{other, node.input(1) == v, {}};
}

// The chain starting at `first` (whose chain value is `input`).
std::vector<Node *> chainFrom(Node *first, Value *input, size_t maxOperands,
                              std::vector<StepInfo> &steps) {
  std::vector<Node *> chain;
  std::vector<Value *> operands;
  Node *node = first;
  Value *value = input;
  while (node && chain.size() < kMaxSteps) {
    std::optional<StepInfo> step = stepOf(*node, value);
    if (!step)
      break;
    if (step->operand &&
        std::find(operands.begin(), operands.end(), step->operand) == operands.end()) {
      if (operands.size() == maxOperands)
        break;
      operands.push_back(step->operand);
    }
    chain.push_back(node);
    steps.push_back(std::move(*step));
    value = node->output(0);
    node = soleUser(value);
  }
  return chain;
}

} // namespace

Status runFuseElementwise(Graph &graph, PassContext &) {
  // The chain op takes its input and this many operands.
  const size_t maxOperands =
      size_t(OpRegistry::instance().find("cuvil.ElementwiseChain")->maxInputs) - 1;
  std::vector<Node *> nodes;
  for (const auto &node : graph.nodes())
    nodes.push_back(node.get());
  std::set<Node *> fused;
  for (Node *first : nodes) {
    if (fused.count(first) || first->numInputs() == 0 || !first->output(0)->hasType())
      continue;
    // The chain value enters as the operand shaped like the result.
    Value *input = nullptr;
    for (Value *candidate : first->inputs())
      if (candidate && candidate->hasType() && candidate->type() == first->output(0)->type())
        input = candidate;
    if (!input)
      continue;
    std::vector<StepInfo> steps;
    std::vector<Node *> chain = chainFrom(first, input, maxOperands, steps);
    if (chain.size() < 2)
      continue;
    std::vector<Value *> inputs = {input};
    std::vector<std::string> ops;
    std::vector<int64_t> operands, operandFirst;
    std::vector<float> params;
    for (size_t s = 0; s < chain.size(); ++s) {
      const StepInfo &step = steps[s];
      int64_t operand = -1;
      if (step.operand) {
        auto it = std::find(inputs.begin() + 1, inputs.end(), step.operand);
        operand = it - inputs.begin() - 1;
        if (it == inputs.end())
          inputs.push_back(step.operand);
      }
      ops.push_back(chain[s]->op());
      operands.push_back(operand);
      operandFirst.push_back(step.operandFirst ? 1 : 0);
      params.insert(params.end(), step.params.begin(), step.params.end());
    }
    Node *last = chain.back();
    Node *fusedNode =
        graph.addNode("cuvil.ElementwiseChain", inputs, {last->output(0)->name() + ".chain"}, last);
    fusedNode->setName(last->name());
    fusedNode->setAttr("steps", ops);
    fusedNode->setAttr("operands", operands);
    fusedNode->setAttr("operand_first", operandFirst);
    fusedNode->setAttr("params", params);
    CUVIL_TRY(inferNodeTypes(*fusedNode));
    graph.replaceAllUsesWith(last->output(0), fusedNode->output(0));
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      fused.insert(*it);
      graph.eraseNode(*it);
    }
  }
  return Status::success();
}

} // namespace cuvil
