// The graph --precision auto measures its choices on: each quantizable
// layer computed both ways, a run-time switch choosing which result the
// rest of the graph reads,
//   x ----------------------------------- op -- [act] ------------+
//   x -- Q -- DQ -- op(w as quantized) -- [act] -- Q -- DQ -------+-- Where(switches[i])
// (a MatMul's x quantized per row at run time, as assign-precision does it,
// and its f32 result not requantized:
//   x -- cuvil.DynamicQuantizeRows -- DQ per row -- MatMul(w as quantized) -- [act])
// so that one compiled graph runs every assignment of layers to INT8. The
// quantized branch is the integer kernel's arithmetic in float: the
// products of dequantized 8-bit values are exact in float and their sums
// round within float's precision, far below one quantization step.
#include "PassUtils.h"
#include "QuantizationPlan.h"

#include "cuvil/passes/Precision.h"

namespace cuvil {
namespace {

// The node after `node` in graph order (null: it is the last).
Node *nodeAfter(const Graph &graph, const Node *node) {
  bool found = false;
  for (const auto &n : graph.nodes()) {
    if (found)
      return n.get();
    found = n.get() == node;
  }
  return nullptr;
}

// The quantized weights as the integer kernel multiplies them, in float:
// q * scale of its channel.
Tensor dequantizedWeights(const Node &op, const QuantizedWeights &w) {
  const int64_t count = w.values.numElements(), channels = w.scales.numElements();
  const int64_t inner = op.op() == "Conv" ? count / channels : 1;
  Tensor values(TensorType{DType::F32, w.values.shape()});
  for (int64_t i = 0; i < count; ++i)
    values.mutableData<float>()[i] =
        float(w.values.data<int8_t>()[i]) * w.scales.data<float>()[(i / inner) % channels];
  return values;
}

// The i32 bias as the integer kernel adds it, in float: q * sx * sw[m].
Tensor dequantizedBias(const Tensor &bias, float inputScale, const Tensor &weightScales) {
  Tensor quantized = quantizeBias(bias, inputScale, weightScales);
  Tensor values(TensorType{DType::F32, bias.shape()});
  for (int64_t m = 0; m < bias.numElements(); ++m)
    values.mutableData<float>()[m] =
        float(double(quantized.data<int32_t>()[m]) * inputScale * weightScales.data<float>()[m]);
  return values;
}

// x -> Q -> DQ with `quant`.
Expected<Value *> roundTrip(Graph &graph, Value *x, ActivationQuant quant, Node *before,
                            const std::string &name) {
  Value *scale = addScalar(graph, name + ".scale", DType::F32, quant.scale);
  Value *zero = addScalar(graph, name + ".zero", DType::U8, quant.zero);
  Expected<Value *> quantized =
      insertNode(graph, "QuantizeLinear", {x, scale, zero}, before, name + ".q");
  CUVIL_TRY(quantized.status());
  return insertNode(graph, "DequantizeLinear", {*quantized, scale, zero}, before, name);
}

// x -> cuvil.DynamicQuantizeRows -> DequantizeLinear of each row (blocked
// along the last axis, one block per row).
Expected<Value *> rowsRoundTrip(Graph &graph, Value *x, Node *before, const std::string &name) {
  Node *rows = graph.addNode("cuvil.DynamicQuantizeRows", {x},
                             {name + ".q", name + ".scale", name + ".zero"}, before);
  CUVIL_TRY(inferNodeTypes(*rows));
  const Shape &shape = x->type().shape;
  Node *dequantize = graph.addNode("DequantizeLinear", rows->outputs(), {name}, before);
  dequantize->setAttr("axis", int64_t(shape.size()) - 1);
  dequantize->setAttr("block_size", shape.back().constant());
  CUVIL_TRY(inferNodeTypes(*dequantize));
  return dequantize->output(0);
}

Status addSwitch(Graph &graph, const Candidate &c, CalibratedRange inputRange,
                 CalibratedRange outputRange, Value *switches, int64_t index, WeightBound weights) {
  Node &op = *c.op;
  Value *represented = const_cast<Value *>(c.represented);
  const std::string base = layerName(c) + ".int8";
  Node *before = nodeAfter(graph, represented->producer());
  const ActivationQuant in = activationQuant(inputRange), out = activationQuant(outputRange);
  const bool rows = quantizesRowsAtRunTime(op);
  Expected<Value *> x = rows ? rowsRoundTrip(graph, op.input(0), before, base + ".x")
                             : roundTrip(graph, op.input(0), in, before, base + ".x");
  CUVIL_TRY(x.status());
  QuantizedWeights w = quantizeWeights(op, weights);
  std::vector<Value *> inputs = {
      *x, graph.addConstant(graph.uniqueName(base + ".w"), dequantizedWeights(op, w))};
  if (op.op() == "Conv" && op.hasInput(2))
    inputs.push_back(
        graph.addConstant(graph.uniqueName(base + ".b"),
                          dequantizedBias(op.input(2)->constant(), in.scale, w.scales)));
  Expected<Value *> result = cloneOnInputs(graph, op, inputs, before, base + ".op");
  CUVIL_TRY(result.status());
  if (c.absorbed) {
    std::vector<Value *> activationInputs = c.absorbed->inputs();
    activationInputs[0] = *result;
    result = cloneOnInputs(graph, *c.absorbed, activationInputs, before, base + ".act");
    CUVIL_TRY(result.status());
  }
  Expected<Value *> quantized = rows ? result : roundTrip(graph, *result, out, before, base + ".y");
  CUVIL_TRY(quantized.status());
  Value *position = graph.addConstant(graph.uniqueName(base + ".index"),
                                      Tensor::fromInt64s(std::vector<int64_t>{index}, {}));
  Expected<Value *> on = insertNode(graph, "Gather", {switches, position}, before, base + ".on");
  CUVIL_TRY(on.status());
  Expected<Value *> chosen =
      insertNode(graph, "Where", {*on, *quantized, represented}, before, base + ".chosen");
  CUVIL_TRY(chosen.status());
  graph.replaceAllUsesWith(represented, *chosen);
  (*chosen)->producer()->setInput(2, represented);
  return Status::success();
}

} // namespace

double convMatMulMultiplyAccumulates(const Graph &graph) {
  double total = 0;
  for (const auto &node : graph.nodes())
    if ((node->op() == "Conv" || node->op() == "MatMul") && node->input(0)->hasType() &&
        node->input(1)->hasType() && node->output(0)->hasType())
      total += multiplyAccumulates(*node);
  return total;
}

Expected<std::vector<SwitchedLayer>>
addQuantizationSwitches(Graph &graph, const PassContext &context, const std::string &switches) {
  // Ranges are looked up before any rewrite, while every value has its name.
  struct Planned {
    Candidate candidate;
    CalibratedRange input, output;
  };
  std::vector<Planned> planned;
  std::vector<SwitchedLayer> layers;
  const CalibrationRanges &ranges = context.precision.ranges;
  for (const Candidate &c : candidates(graph, context)) {
    auto input = ranges.find(c.input->name()), output = ranges.find(c.represented->name());
    if (quantizesRowsAtRunTime(*c.op))
      planned.push_back({c, {}, {}});
    else if (input != ranges.end() && output != ranges.end())
      planned.push_back({c, input->second, output->second});
    else
      continue;
    layers.push_back({layerName(c), c.op->describe(), multiplyAccumulates(*c.op)});
  }
  Value *flags = graph.addInput(switches, TensorType{DType::Bool, {Dim(int64_t(planned.size()))}});
  for (size_t i = 0; i < planned.size(); ++i) {
    const Planned &p = planned[i];
    CUVIL_TRY(addSwitch(graph, p.candidate, p.input, p.output, flags, int64_t(i),
                        context.precision.weights)
                  .withContext(layers[i].op));
  }
  return layers;
}

} // namespace cuvil
