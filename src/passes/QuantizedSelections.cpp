#include "QuantizedSelections.h"

#include "PassUtils.h"

#include <optional>
#include <set>
#include <string>

namespace cuvil {
namespace {

// A DequantizeLinear's or QuantizeLinear's scale and zero point (null: 0
// of the quantized type) when they are one positive f32 scale and one
// constant zero point.
struct PerTensor {
  Value *scale, *zero;
};

std::optional<PerTensor> perTensorQuantization(const Node *node, const char *op) {
  if (!node || node->op() != op || node->getInt("block_size", 0) != 0)
    return std::nullopt;
  Value *scale = node->input(1), *zero = node->hasInput(2) ? node->input(2) : nullptr;
  if (!scale->isConstant() || scale->type().dtype != DType::F32 ||
      scale->constant().numElements() != 1 || !(scale->constant().getDouble(0) > 0))
    return std::nullopt;
  if (zero && (!zero->isConstant() || zero->constant().numElements() != 1))
    return std::nullopt;
  return PerTensor{scale, zero};
}

// DequantizeLinear -> op -> QuantizeLinear as op on the 8-bit value.
Status selectOnQuantized(Graph &graph, Node &op) {
  Node *dequantize = op.input(0)->producer(), *quantize = soleUser(op.output(0));
  std::optional<PerTensor> in = perTensorQuantization(dequantize, "DequantizeLinear");
  std::optional<PerTensor> out = perTensorQuantization(quantize, "QuantizeLinear");
  if (!in || !out || quantize->input(0) != op.output(0))
    return Status::success();
  Value *quantized = dequantize->input(0);
  const DType dtype = quantized->type().dtype;
  // Both zero points absent: u8 with zero point 0 on both sides.
  const bool sameZero = in->zero || out->zero
                            ? sameScalar(in->zero, out->zero)
                            : dtype == DType::U8 && !quantize->hasAttr("output_dtype");
  if ((dtype != DType::U8 && dtype != DType::I8) || !sameScalar(in->scale, out->scale) || !sameZero)
    return Status::success();
  std::vector<Value *> inputs = op.inputs();
  inputs[0] = quantized;
  Expected<Value *> integer =
      cloneOnInputs(graph, op, inputs, quantize, op.output(0)->name() + ".q");
  CUVIL_TRY(integer.status().withContext(op.describe()));
  graph.replaceAllUsesWith(quantize->output(0), *integer);
  graph.eraseNode(quantize);
  graph.eraseNode(&op);
  return Status::success();
}

} // namespace

bool selectsElements(const Node &node) {
  static const std::set<std::string> kOps = {
      "MaxPool", "Reshape", "Transpose", "Squeeze",  "Unsqueeze",    "Flatten",
      "Slice",   "Gather",  "Expand",    "Identity", "SpaceToDepth", "DepthToSpace"};
  return kOps.count(node.op()) != 0 && node.numOutputs() == 1;
}

Status selectOnQuantizedValues(Graph &graph) {
  std::vector<Node *> selections;
  for (const auto &node : graph.nodes())
    if (selectsElements(*node))
      selections.push_back(node.get());
  for (Node *selection : selections)
    CUVIL_TRY(selectOnQuantized(graph, *selection));
  return Status::success();
}

} // namespace cuvil
