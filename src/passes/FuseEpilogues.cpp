// fuse-epilogues: folds the elementwise tail of a Conv or MatMul into one
// fused op whose kernel applies it before storing:
//   Conv   ->               [Add bias] -> [Add residual] -> [activation]  => cuvil.FusedConv
//   MatMul -> [Mul/Div c] -> [Add bias] -> [Add residual] -> [activation]  => cuvil.FusedMatMul
//   QLinearConv -> DequantizeLinear -> [Add residual] -> [activation]     => cuvil.FusedQLinearConv
//                                                     -> [QuantizeLinear]
//   cuvil.MatMulIntegerToFloat -> activation    => its `activation` attribute
// (the DequantizeLinear with the QLinearConv's output scale and zero point,
// its only reader: the kernel dequantizes what it requantized, exactly.
// A QuantizeLinear to the QLinearConv's 8-bit type is taken when the
// residual, if any, is a DequantizeLinear of that type too: its 8-bit
// value is read instead, and the epilogue reads and writes 8 bits, as a
// residual stream quantized between blocks (ResNet's) runs.)
// A bias is a constant broadcasting along the output channel (Conv: [M,1,1],
// MatMul: [N]); a residual is a tensor of the result's shape (for MatMul,
// one broadcasting along batch dims and rows, like an attention mask); c is
// a scalar constant (attention's 1/sqrt(d)); the activation is a unary op
// whose ElementwiseFacts say it is finite at zero, with constant
// parameters (taken across a Reshape, which then follows the fused op).
// Each absorbed value must have no other use. The fused node takes the place of the
// last absorbed node, where all its inputs are defined.
#include "PassUtils.h"

#include "cuvil/ir/Broadcast.h"
#include "cuvil/passes/Passes.h"

namespace cuvil {
namespace {

// A constant that adds one value per output channel `channels` along `axis`
// counted from the end (Conv: axis 3 of [.., M, H, W]; MatMul: the last).
std::optional<Tensor> channelBias(const Value *value, int64_t channels, size_t fromEnd,
                                  int64_t outRank) {
  if (!value->isConstant() || value->type().dtype != DType::F32)
    return std::nullopt;
  const Shape &shape = value->type().shape;
  if (int64_t(shape.size()) > outRank || !value->type().numElements().is(channels))
    return std::nullopt;
  // Every dim but the channel one must be 1.
  for (size_t i = 0; i < shape.size(); ++i) {
    bool channelDim = shape.size() - i == fromEnd;
    if (!channelDim && shape[i] != 1)
      return std::nullopt;
    if (channelDim && shape[i] != channels)
      return std::nullopt;
  }
  return value->constant().reshaped({channels});
}

struct Fusion {
  Node *root = nullptr;
  float scale = 1.0f;
  std::optional<Tensor> bias;
  Value *residual = nullptr;
  std::string activation;
  std::vector<float> activationParams;
  Node *quantize = nullptr; // the QuantizeLinear a FusedQLinearConv's result takes
  Value *result = nullptr;  // the value the fused node replaces
  Node *last = nullptr;     // the last absorbed node
  std::vector<Node *> absorbed;

  // Takes `node` (the sole user of `result`) into the fusion; returns the
  // next candidate.
  Node *absorb(Node *node) {
    absorbed.push_back(node);
    result = node->output(0);
    last = node;
    return soleUser(result);
  }
};

// A MatMul's product times (or divided by) a scalar, as attention scores
// are scaled by 1/sqrt(d); returns the factor.
std::optional<float> scaleFactor(const Node &node, const Value *product) {
  bool divides = node.op() == "Div";
  if ((node.op() != "Mul" && !divides) || (divides && node.input(0) != product))
    return std::nullopt;
  const Value *factor = otherOperand(node, product);
  if (!factor->isConstant() || factor->constant().numElements() != 1 ||
      factor->type().dtype != DType::F32)
    return std::nullopt;
  double value = factor->constant().getDouble(0);
  return float(divides ? 1.0 / value : value);
}

// The residual operand of `add`: for Conv the result's type, for MatMul any
// tensor broadcasting to it with the same last dimension.
Value *residualOperand(const Node &add, const Value *result, bool conv) {
  Value *other = otherOperand(add, result);
  const TensorType &type = result->type();
  if (other == result || other->type().dtype != type.dtype)
    return nullptr;
  if (other->type() == type)
    return other;
  if (conv || other->type().shape.empty() || other->type().shape.back() != type.shape.back())
    return nullptr;
  Expected<Shape> broadcast = broadcastShapes(other->type().shape, type.shape);
  return broadcast.ok() && *broadcast == type.shape ? other : nullptr;
}

// The op name and parameters of `node` as a fused epilogue's activation.
std::optional<std::pair<std::string, std::vector<float>>> activationOf(const Node &node) {
  const ElementwiseFacts *facts = elementwiseFacts(node);
  if (!facts || facts->arity != ElementwiseFacts::Arity::Unary || !facts->finiteAtZero)
    return std::nullopt;
  std::optional<std::vector<float>> params =
      elementwiseParams(node, *OpRegistry::instance().find(node.op()));
  if (!params)
    return std::nullopt;
  return std::pair{node.op(), std::move(*params)};
}

// Whether `node` quantizes or dequantizes (`op`) per tensor by a constant
// f32 scale and a constant zero point of `dtype`.
bool quantizesPerTensor(const Node &node, const char *op, DType dtype) {
  if (node.op() != op || !node.hasInput(2) || node.getInt("block_size", 0) != 0)
    return false;
  const Value *scale = node.input(1), *zero = node.input(2);
  return scale->isConstant() && scale->type().dtype == DType::F32 &&
         scale->constant().numElements() == 1 && zero->isConstant() &&
         zero->type().dtype == dtype && zero->constant().numElements() == 1;
}

// The QLinearConv a DequantizeLinear undoes the output quantization of.
Node *dequantizedConv(const Node &node) {
  if (node.op() != "DequantizeLinear" || node.numInputs() < 3)
    return nullptr;
  Node *conv = node.input(0)->producer();
  if (!conv || conv->op() != "QLinearConv" || !node.input(0)->hasOneUse())
    return nullptr;
  // QLinearConv inputs 6 and 7: y_scale, y_zero_point.
  return sameScalar(node.input(1), conv->input(6)) && sameScalar(node.input(2), conv->input(7))
             ? conv
             : nullptr;
}

Fusion match(Node &root) {
  const bool dequantized = root.op() == "DequantizeLinear";
  bool conv = root.op() == "Conv" || dequantized;
  Fusion fusion;
  fusion.root = &root;
  fusion.result = root.output(0);
  fusion.last = &root;
  const Shape &outShape = root.output(0)->type().shape;
  // A bias constant has a static channel count (-1 matches none).
  const Dim &channelDim = conv ? outShape[1] : outShape.back();
  int64_t channels = channelDim.isConstant() ? channelDim.constant() : -1;
  size_t channelFromEnd = conv ? outShape.size() - 1 : 1;
  if (root.op() == "Conv" && root.hasInput(2))
    fusion.bias = root.input(2)->constant();

  Node *next = soleUser(fusion.result);
  if (!conv && next) {
    if (std::optional<float> factor = scaleFactor(*next, fusion.result)) {
      fusion.scale = *factor;
      next = fusion.absorb(next);
    }
  }
  // Bias: a constant per-channel Add (summed into the Conv's own bias; a
  // QLinearConv's is integer, inside the requantization).
  if (!dequantized && next && next->op() == "Add") {
    std::optional<Tensor> bias = channelBias(otherOperand(*next, fusion.result), channels,
                                             channelFromEnd, int64_t(outShape.size()));
    if (bias) {
      if (fusion.bias)
        for (int64_t c = 0; c < channels; ++c)
          bias->setDouble(c, bias->getDouble(c) + fusion.bias->getDouble(c));
      fusion.bias = std::move(bias);
      next = fusion.absorb(next);
    }
  }
  if (next && next->op() == "Add") {
    if (Value *residual = residualOperand(*next, fusion.result, conv)) {
      fusion.residual = residual;
      next = fusion.absorb(next);
    }
  }
  if (next && next->input(0) == fusion.result) {
    if (auto activation = activationOf(*next)) {
      fusion.activation = activation->first;
      fusion.activationParams = activation->second;
      next = fusion.absorb(next);
    }
  }
  if (dequantized && next && next->input(0) == fusion.result) {
    const DType type = root.input(0)->type().dtype;
    const Node *residual = fusion.residual ? fusion.residual->producer() : nullptr;
    if (quantizesPerTensor(*next, "QuantizeLinear", type) &&
        (!fusion.residual ||
         (residual && quantizesPerTensor(*residual, "DequantizeLinear", type)))) {
      fusion.quantize = next;
      fusion.absorb(next);
    }
  }
  return fusion;
}

// Makes the fused `op` of `inputs`, with `origin`'s name and attributes and
// the epilogue's, in place of the fusion's result; the absorbed nodes go.
void emitFused(Graph &graph, Fusion &fusion, const std::string &op,
               const std::vector<Value *> &inputs, const Node &origin) {
  Node *fused = graph.addNode(op, inputs, {fusion.result->name() + ".fused"}, fusion.last);
  fused->setName(origin.name());
  for (const auto &[name, attr] : origin.attributes())
    fused->setAttr(name, attr);
  if (fusion.scale != 1.0f)
    fused->setAttr("scale", fusion.scale);
  if (!fusion.activation.empty()) {
    fused->setAttr("activation", fusion.activation);
    if (!fusion.activationParams.empty())
      fused->setAttr("activation_params", fusion.activationParams);
  }
  fused->output(0)->setType(fusion.result->type());
  graph.replaceAllUsesWith(fusion.result, fused->output(0));
  for (auto it = fusion.absorbed.rbegin(); it != fusion.absorbed.rend(); ++it)
    graph.eraseNode(*it);
}

void apply(Graph &graph, Fusion &fusion) {
  Node &root = *fusion.root;
  if (Node *integer = dequantizedConv(root)) {
    // QLinearConv's inputs, then the residual after the bias (or a null).
    std::vector<Value *> inputs(integer->inputs().begin(), integer->inputs().end());
    if (fusion.quantize || fusion.residual)
      inputs.resize(9);
    if (fusion.quantize) {
      // The residual's 8-bit value and quantization (inputs 9-11), then the
      // result's (12, 13).
      const Node *residual = fusion.residual ? fusion.residual->producer() : nullptr;
      for (size_t i = 0; i < 3; ++i)
        inputs.push_back(residual ? residual->input(i) : nullptr);
      inputs.push_back(fusion.quantize->input(1));
      inputs.push_back(fusion.quantize->input(2));
    } else if (fusion.residual) {
      inputs.push_back(fusion.residual);
    }
    emitFused(graph, fusion, "cuvil.FusedQLinearConv", inputs, *integer);
    graph.eraseNode(&root);
    graph.eraseNode(integer);
    return;
  }
  std::vector<Value *> inputs = {root.input(0), root.input(1)};
  if (fusion.bias)
    inputs.push_back(graph.addConstant(root.output(0)->name() + ".bias", *fusion.bias));
  if (fusion.residual) {
    if (!fusion.bias)
      inputs.push_back(nullptr);
    inputs.push_back(fusion.residual);
  }
  emitFused(graph, fusion, root.op() == "Conv" ? "cuvil.FusedConv" : "cuvil.FusedMatMul", inputs,
            root);
  graph.eraseNode(&root);
}

// An activation of a Reshape's result, the Reshape's input used nowhere
// else, is applied before the Reshape instead (GPT-2's Conv1D layers: Gemm,
// a Reshape back to [batch, seq, features], then GELU), so that the
// producer's epilogue can take it.
Status applyBeforeReshapes(Graph &graph) {
  std::vector<Node *> activations;
  for (const auto &node : graph.nodes())
    if (activationOf(*node))
      activations.push_back(node.get());
  for (Node *activation : activations) {
    Node *reshape = activation->input(0)->producer();
    if (!reshape || reshape->op() != "Reshape" || !activation->input(0)->hasOneUse() ||
        !reshape->input(0)->hasOneUse())
      continue;
    std::vector<Value *> inputs(activation->inputs().begin(), activation->inputs().end());
    inputs[0] = reshape->input(0);
    const std::string name = activation->output(0)->name();
    Node *moved = graph.addNode(activation->op(), inputs, {name + ".unshaped"}, activation);
    moved->setName(activation->name());
    for (const auto &[attribute, value] : activation->attributes())
      moved->setAttr(attribute, value);
    CUVIL_TRY(inferNodeTypes(*moved));
    Node *reshaped = graph.addNode("Reshape", {moved->output(0), reshape->input(1)},
                                   {name + ".shaped"}, activation);
    reshaped->setName(reshape->name());
    for (const auto &[attribute, value] : reshape->attributes())
      reshaped->setAttr(attribute, value);
    CUVIL_TRY(inferNodeTypes(*reshaped));
    graph.replaceAllUsesWith(activation->output(0), reshaped->output(0));
    graph.eraseNode(activation);
    graph.eraseNode(reshape);
  }
  return Status::success();
}

// The activation that alone reads a cuvil.MatMulIntegerToFloat's result
// (its bias is already inside) becomes its attribute.
void absorbIntegerMatMulActivations(Graph &graph) {
  std::vector<std::pair<Node *, Node *>> fusions;
  for (const auto &node : graph.nodes()) {
    if (node->op() != "cuvil.MatMulIntegerToFloat" || node->findAttr("activation"))
      continue;
    Node *next = soleUser(node->output(0));
    if (next && next->input(0) == node->output(0) && activationOf(*next))
      fusions.emplace_back(node.get(), next);
  }
  for (auto [integer, activation] : fusions) {
    auto [op, params] = *activationOf(*activation);
    integer->setAttr("activation", op);
    if (!params.empty())
      integer->setAttr("activation_params", params);
    graph.replaceAllUsesWith(activation->output(0), integer->output(0));
    graph.eraseNode(activation);
  }
}

} // namespace

Status runFuseEpilogues(Graph &graph, PassContext &) {
  CUVIL_TRY(applyBeforeReshapes(graph));
  absorbIntegerMatMulActivations(graph);
  std::vector<Node *> roots;
  for (const auto &node : graph.nodes()) {
    if (node->output(0)->type().dtype != DType::F32)
      continue;
    bool conv = node->op() == "Conv" && (!node->hasInput(2) || node->input(2)->isConstant());
    bool matMul = node->op() == "MatMul" && node->input(0)->type().rank() >= 2 &&
                  node->input(1)->type().rank() >= 2;
    if (conv || matMul || dequantizedConv(*node))
      roots.push_back(node.get());
  }
  for (Node *root : roots) {
    // A fusion before may have taken a DequantizeLinear's 8-bit input as
    // its residual: the DequantizeLinear is then no longer the QLinearConv's
    // only reader (or read at all), and stays.
    if (root->op() == "DequantizeLinear" && !dequantizedConv(*root))
      continue;
    Fusion fusion = match(*root);
    // The DequantizeLinear itself is worth fusing: the f32 result skips the
    // 8-bit tensor and a pass over it.
    if (!fusion.absorbed.empty() || root->op() == "DequantizeLinear")
      apply(graph, fusion);
  }
  graph.eraseUnusedConstants();
  return Status::success();
}

} // namespace cuvil
