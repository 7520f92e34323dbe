// fuse-elementwise: a chain of f32 elementwise ops, each the only user of
// the previous one's result, becomes one cuvil.ElementwiseChain that reads
// its input and writes its result once:
//   y = tanh(x * a + b)   (Mul, Add, Tanh: three passes)  =>  one pass
// The value flowing along the chain keeps the result's shape; each binary
// step's other operand (at most 4 per chain) may broadcast.
#include "PassUtils.h"

#include "cuvil/ir/Broadcast.h"
#include "cuvil/kernels/KernelParams.h"
#include "cuvil/passes/Passes.h"

#include <algorithm>
#include <array>
#include <limits>
#include <set>

namespace cuvil {
namespace {

constexpr size_t kMaxOperands = 4;

struct StepInfo {
  int64_t kind; // 0 unary, 1 v op w, 2 w op v
  int64_t code;
  Value *operand = nullptr;
  float alpha = 0, beta = 0;
};

struct UnaryEntry {
  std::string_view op;
  cuvil_unary_op code;
};

constexpr std::array<UnaryEntry, 15> kUnary = {{
    {"Relu", CUVIL_UNARY_RELU},
    {"Sigmoid", CUVIL_UNARY_SIGMOID},
    {"Tanh", CUVIL_UNARY_TANH},
    {"Erf", CUVIL_UNARY_ERF},
    {"Sqrt", CUVIL_UNARY_SQRT},
    {"Exp", CUVIL_UNARY_EXP},
    {"Log", CUVIL_UNARY_LOG},
    {"Neg", CUVIL_UNARY_NEG},
    {"Abs", CUVIL_UNARY_ABS},
    {"Reciprocal", CUVIL_UNARY_RECIPROCAL},
    {"Floor", CUVIL_UNARY_FLOOR},
    {"Ceil", CUVIL_UNARY_CEIL},
    {"HardSwish", CUVIL_UNARY_HARDSWISH},
    {"LeakyRelu", CUVIL_UNARY_LEAKYRELU},
    {"HardSigmoid", CUVIL_UNARY_HARDSIGMOID},
}};

struct BinaryEntry {
  std::string_view op;
  cuvil_binary_op code;
};

constexpr std::array<BinaryEntry, 6> kBinary = {{{"Add", CUVIL_BINARY_ADD},
                                                 {"Sub", CUVIL_BINARY_SUB},
                                                 {"Mul", CUVIL_BINARY_MUL},
                                                 {"Div", CUVIL_BINARY_DIV},
                                                 {"Max", CUVIL_BINARY_MAX},
                                                 {"Min", CUVIL_BINARY_MIN}}};

// The step `node` applies to the chain value `v`, if it is a fusable f32
// elementwise op whose result has v's type.
std::optional<StepInfo> stepOf(const Node &node, const Value *v) {
  const TensorType &type = v->type();
  if (node.numOutputs() != 1 || node.output(0)->type() != type || type.dtype != DType::F32)
    return std::nullopt;
  for (const UnaryEntry &entry : kUnary) {
    if (node.op() != entry.op || node.input(0) != v)
      continue;
    StepInfo step{0, entry.code};
    if (entry.code == CUVIL_UNARY_LEAKYRELU)
      step.alpha = node.getFloat("alpha", 0.01f);
    if (entry.code == CUVIL_UNARY_HARDSIGMOID) {
      step.alpha = node.getFloat("alpha", 0.2f);
      step.beta = node.getFloat("beta", 0.5f);
    }
    return step;
  }
  if (node.op() == "Clip") {
    float bounds[2] = {-std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::infinity()};
    for (size_t i = 1; i < 3; ++i) {
      const Value *bound = node.input(i);
      if (!bound)
        continue;
      if (!bound->isConstant() || bound->constant().numElements() != 1)
        return std::nullopt;
      bounds[i - 1] = float(bound->constant().getDouble(0));
    }
    return node.input(0) == v ? std::optional<StepInfo>(
                                    StepInfo{0, CUVIL_UNARY_CLIP, nullptr, bounds[0], bounds[1]})
                              : std::nullopt;
  }
  for (const BinaryEntry &entry : kBinary) {
    if (node.op() != entry.op || (node.input(0) == v) == (node.input(1) == v))
      continue;
    Value *other = node.input(0) == v ? node.input(1) : node.input(0);
    Expected<Shape> broadcast = broadcastShapes(other->type().shape, type.shape);
    if (other->type().dtype != DType::F32 || !broadcast || *broadcast != type.shape)
      return std::nullopt;
    return StepInfo{node.input(0) == v ? 1 : 2, entry.code, other};
  }
  return std::nullopt;
}

// The chain starting at `first` (whose chain value is `input`).
std::vector<Node *> chainFrom(Node *first, Value *input, std::vector<StepInfo> &steps) {
  std::vector<Node *> chain;
  std::vector<Value *> operands;
  Node *node = first;
  Value *value = input;
  while (node) {
    std::optional<StepInfo> step = stepOf(*node, value);
    if (!step)
      break;
    if (step->operand &&
        std::find(operands.begin(), operands.end(), step->operand) == operands.end()) {
      if (operands.size() == kMaxOperands)
        break;
      operands.push_back(step->operand);
    }
    chain.push_back(node);
    steps.push_back(*step);
    value = node->output(0);
    node = value->hasOneUse() ? value->uses()[0].node : nullptr;
  }
  return chain;
}

} // namespace

Status runFuseElementwise(Graph &graph, PassContext &) {
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
    std::vector<Node *> chain = chainFrom(first, input, steps);
    if (chain.size() < 2)
      continue;
    std::vector<Value *> inputs = {input};
    std::vector<int64_t> program;
    std::vector<float> params;
    for (const StepInfo &step : steps) {
      int64_t operand = -1;
      if (step.operand) {
        auto it = std::find(inputs.begin() + 1, inputs.end(), step.operand);
        operand = it - inputs.begin() - 1;
        if (it == inputs.end())
          inputs.push_back(step.operand);
      }
      program.insert(program.end(), {step.kind, step.code, operand});
      params.insert(params.end(), {step.alpha, step.beta});
    }
    Node *last = chain.back();
    Node *fusedNode =
        graph.addNode("cuvil.ElementwiseChain", inputs, {last->output(0)->name() + ".chain"}, last);
    fusedNode->setName(last->name());
    fusedNode->setAttr("program", program);
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
