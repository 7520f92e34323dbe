// assign-precision: under the int8 policy, every Conv (1-D, 2-D) and MatMul
// with constant f32 weights whose activation ranges were calibrated runs on
// the integer kernels, unless FP32 runs it faster (QuantizationPlan.cpp's
// candidates()); under auto, those of them the accuracy-budget search chose
// (PrecisionOptions::layers):
//   x -> QuantizeLinear(sx, zx) -> QLinearConv / QLinearMatMul -> DequantizeLinear(sy, zy)
// - activations u8, asymmetric: the calibrated [min, max] widened to hold 0
//   (so that zero padding and ReLU's floor are exact), scale (max - min) / 255;
// - weights i8, symmetric per output channel (Conv) or column (MatMul),
//   scale max|w| / L, values in [-L, L], L per channel the largest that
//   every variant of the target multiplies exactly on its fastest tile
//   (weightBoundFor): 127 with VNNI; on x86-64 without it, where
//   vpmaddubsw's i16 sums of two u8 x i8 products saturate beyond 2^15
//   and the tile adds two such sums in i16 before widening (a third fewer
//   multiplies than widening each), the largest L up to 127 whose sets of
//   four summed weights stay within 128 in |w| (at least 32, 6 bits; most
//   channels get 7 or more: ONNX Runtime's reduce_range keeps 7); 63 on
//   aarch64; the bias i32 at scale sx * sw;
// - a Relu, or a Clip with constant bounds, that alone reads the result is
//   absorbed: the output is quantized with its range, whose saturation then
//   clamps as it did (the range holds 0 and lies within the Clip's bounds).
// Then a QuantizeLinear of a DequantizeLinear with the same per-tensor scale
// and zero point is the integer value itself: consecutive quantized ops
// pass u8 tensors, and float values remain only at the edges of integer
// regions (a pooling, the graph's outputs); a value quantized twice alike
// is quantized once, and a residual Add between integer ops reads its
// shortcut quantized (quantizeResidualStreams).
#include "PassUtils.h"
#include "QuantizationPlan.h"
#include "QuantizedSelections.h"

#include "cuvil/passes/Passes.h"
#include "cuvil/passes/Precision.h"

#include <algorithm>

namespace cuvil {
namespace {

Status quantize(Graph &graph, const Candidate &c, CalibratedRange inputRange,
                CalibratedRange outputRange, WeightBound weights) {
  Node &op = *c.op;
  const std::string base = op.output(0)->name();
  const ActivationQuant in = activationQuant(inputRange), out = activationQuant(outputRange);
  Value *inScale = addScalar(graph, base + ".x_scale", DType::F32, in.scale);
  Value *inZero = addScalar(graph, base + ".x_zero", DType::U8, in.zero);
  Value *outScale = addScalar(graph, base + ".y_scale", DType::F32, out.scale);
  Value *outZero = addScalar(graph, base + ".y_zero", DType::U8, out.zero);
  const bool conv = op.op() == "Conv";
  QuantizedWeights w = quantizeWeights(op, weights);
  const int64_t channels = w.scales.numElements();
  Value *weightValues = graph.addConstant(graph.uniqueName(base + ".w_q"), std::move(w.values));

  Expected<Value *> quantized =
      insertNode(graph, "QuantizeLinear", {op.input(0), inScale, inZero}, &op, base + ".x_q");
  CUVIL_TRY(quantized.status());
  std::vector<Value *> inputs = {*quantized, inScale, inZero,   weightValues,
                                 nullptr,    nullptr, outScale, outZero};
  if (conv && op.hasInput(2))
    inputs.push_back(graph.addConstant(graph.uniqueName(base + ".bias_q"),
                                       quantizeBias(op.input(2)->constant(), in.scale, w.scales)));
  // QLinearMatMul takes B's per-column scale and zero point as [1, N].
  Shape quantShape = conv ? Shape{channels} : Shape{1, channels};
  inputs[4] = graph.addConstant(graph.uniqueName(base + ".w_scale"), w.scales.reshaped(quantShape));
  inputs[5] = graph.addConstant(graph.uniqueName(base + ".w_zero"),
                                Tensor(TensorType{DType::I8, quantShape}));
  Node *integer =
      graph.addNode(conv ? "QLinearConv" : "QLinearMatMul", inputs, {base + ".y_q"}, &op);
  if (conv)
    for (const auto &[name, attribute] : op.attributes())
      integer->setAttr(name, attribute);
  integer->setName(op.name());
  CUVIL_TRY(inferNodeTypes(*integer));
  Expected<Value *> result = insertNode(graph, "DequantizeLinear",
                                        {integer->output(0), outScale, outZero}, &op, base + ".y");
  CUVIL_TRY(result.status());
  Value *represented = const_cast<Value *>(c.represented);
  graph.replaceAllUsesWith(represented, *result);
  if (c.absorbed)
    graph.eraseNode(c.absorbed);
  graph.eraseNode(&op);
  return Status::success();
}

// A MatMul's activations quantized per row at run time:
//   x -> cuvil.DynamicQuantizeRows -> cuvil.MatMulIntegerToFloat(w_q, w_scale[, bias]) -> f32
// (the bias an Add of a constant that reads the result alone); the result
// is f32, so nothing is calibrated, requantized or dequantized, and an
// activation after it stays as it was.
// (x quantized once for all the MatMuls that read it: attention's Q, K
// and V projections.)
Status quantizeRows(Graph &graph, Node &op, WeightBound weights) {
  const std::string base = op.output(0)->name();
  QuantizedWeights w = quantizeWeights(op, weights);
  Node *rows = nullptr;
  for (const Use &use : op.input(0)->uses())
    if (use.node->op() == "cuvil.DynamicQuantizeRows")
      rows = use.node;
  if (!rows) {
    // Before the first of them (candidates come in graph order).
    rows = graph.addNode("cuvil.DynamicQuantizeRows", {op.input(0)},
                         {base + ".x_q", base + ".x_scale", base + ".x_zero"}, &op);
    CUVIL_TRY(inferNodeTypes(*rows));
  }
  Node *bias = columnBiasAdd(op.output(0));
  std::vector<Value *> inputs = {
      rows->output(0), graph.addConstant(graph.uniqueName(base + ".w_q"), std::move(w.values)),
      rows->output(1), graph.addConstant(graph.uniqueName(base + ".w_scale"), std::move(w.scales)),
      rows->output(2)};
  if (bias) // b_zero_point absent, then the bias
    inputs.insert(inputs.end(), {nullptr, otherOperand(*bias, op.output(0))});
  Node *integer = graph.addNode("cuvil.MatMulIntegerToFloat", inputs, {base + ".y"}, &op);
  integer->setName(op.name());
  CUVIL_TRY(inferNodeTypes(*integer));
  Value *replaced = bias ? bias->output(0) : op.output(0);
  graph.replaceAllUsesWith(replaced, integer->output(0));
  if (bias)
    graph.eraseNode(bias);
  graph.eraseNode(&op);
  return Status::success();
}

// QuantizeLinear(DequantizeLinear(q, s, z), s, z) is q.
void cancelRequantization(Graph &graph) {
  std::vector<Node *> quantizes;
  for (const auto &node : graph.nodes())
    if (node->op() == "QuantizeLinear")
      quantizes.push_back(node.get());
  for (Node *q : quantizes) {
    const Node *d = q->input(0)->producer();
    if (!d || d->op() != "DequantizeLinear" || !q->hasInput(2) || !d->hasInput(2))
      continue;
    if (!sameScalar(q->input(1), d->input(1)) || !sameScalar(q->input(2), d->input(2)))
      continue;
    graph.replaceAllUsesWith(q->output(0), d->input(0));
    graph.eraseNode(q);
  }
}

// Two QuantizeLinear of one value with the same scale and zero point (a
// residual block's input, read by its first convolution and by the
// shortcut's) are one: the later one's users read the earlier one.
void mergeRequantization(Graph &graph) {
  std::vector<Node *> kept, duplicates;
  for (const auto &node : graph.nodes()) {
    if (node->op() != "QuantizeLinear" || !node->hasInput(2))
      continue;
    auto same = [&](const Node *earlier) {
      return earlier->input(0) == node->input(0) && sameScalar(earlier->input(1), node->input(1)) &&
             sameScalar(earlier->input(2), node->input(2));
    };
    auto earlier = std::find_if(kept.begin(), kept.end(), same);
    if (earlier == kept.end()) {
      kept.push_back(node.get());
      continue;
    }
    graph.replaceAllUsesWith(node->output(0), (*earlier)->output(0));
    duplicates.push_back(node.get());
  }
  for (Node *duplicate : duplicates)
    graph.eraseNode(duplicate);
}

// A residual Add of an integer op's dequantized result and a value that is
// quantized for another integer op (a residual block's input, which its
// first convolution reads quantized) reads that quantization dequantized:
// the stream between blocks is then 8-bit (fuse-epilogues gives the
// block's last convolution an 8-bit residual and result, a quarter of the
// bytes), at the cost of rounding the shortcut to the step the next
// convolution reads it at anyway; ONNX Runtime's quantize_static
// quantizes the Add's operands likewise.
Status quantizeResidualStreams(Graph &graph) {
  std::vector<Node *> quantizes;
  for (const auto &node : graph.nodes())
    if (node->op() == "QuantizeLinear" && node->hasInput(2))
      quantizes.push_back(node.get());
  for (Node *q : quantizes) {
    std::vector<Use> adds;
    for (const Use &use : q->input(0)->uses()) {
      const Value *other = use.node->op() == "Add" ? otherOperand(*use.node, q->input(0)) : nullptr;
      if (other && other != q->input(0) && other->producer() &&
          other->producer()->op() == "DequantizeLinear")
        adds.push_back(use);
    }
    for (const Use &add : adds) {
      Expected<Value *> dequantized =
          insertNode(graph, "DequantizeLinear", {q->output(0), q->input(1), q->input(2)}, add.node,
                     q->input(0)->name() + ".dq");
      CUVIL_TRY(dequantized.status());
      add.node->setInput(add.operand, *dequantized);
    }
  }
  return Status::success();
}

} // namespace

std::vector<const Value *> valuesToCalibrate(const Graph &graph, const PassContext &context) {
  std::vector<const Value *> values;
  auto add = [&](const Value *value) {
    if (std::find(values.begin(), values.end(), value) == values.end())
      values.push_back(value);
  };
  for (const Candidate &c : candidates(graph, context)) {
    if (quantizesRowsAtRunTime(*c.op))
      continue;
    add(c.input);
    add(c.represented);
  }
  return values;
}

Status runAssignPrecision(Graph &graph, PassContext &context) {
  const PrecisionOptions &precision = context.precision;
  if (!quantizesFromRanges(precision.policy))
    return Status::success();
  // Ranges are looked up before any rewrite renames the values.
  struct Planned {
    Candidate candidate;
    CalibratedRange input, output;
  };
  std::vector<Planned> planned;
  for (const Candidate &c : candidates(graph, context)) {
    if (precision.layers && !precision.layers->count(layerName(c)))
      continue;
    auto input = precision.ranges.find(c.input->name());
    auto output = precision.ranges.find(c.represented->name());
    if (quantizesRowsAtRunTime(*c.op))
      planned.push_back({c, {}, {}});
    else if (input != precision.ranges.end() && output != precision.ranges.end())
      planned.push_back({c, input->second, output->second});
  }
  context.precisionStats.quantizable += candidates(graph, context).size();
  context.precisionStats.quantized += planned.size();
  for (const Planned &p : planned) {
    std::string described = p.candidate.op->describe(); // the node is gone after
    Status quantized = quantizesRowsAtRunTime(*p.candidate.op)
                           ? quantizeRows(graph, *p.candidate.op, precision.weights)
                           : quantize(graph, p.candidate, p.input, p.output, precision.weights);
    CUVIL_TRY(quantized.withContext(described));
  }
  cancelRequantization(graph);
  mergeRequantization(graph);
  CUVIL_TRY(selectOnQuantizedValues(graph));
  CUVIL_TRY(quantizeResidualStreams(graph));
  graph.eraseUnusedConstants();
  return Status::success();
}

} // namespace cuvil
