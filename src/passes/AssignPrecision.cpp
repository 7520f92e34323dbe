// assign-precision: under the int8 policy, every Conv (1-D, 2-D) and MatMul
// with constant f32 weights whose activation ranges were calibrated runs on
// the integer kernels, unless FP32 runs it faster (quantizable() below):
//   x -> QuantizeLinear(sx, zx) -> QLinearConv / QLinearMatMul -> DequantizeLinear(sy, zy)
// - activations u8, asymmetric: the calibrated [min, max] widened to hold 0
//   (so that zero padding and ReLU's floor are exact), scale (max - min) / 255;
// - weights i8, symmetric per output channel (Conv) or column (MatMul),
//   in 7 bits: scale max|w| / 63, values in [-63, 63], so that the AVX2
//   kernels multiply bytes exactly (vpmaddubsw's i16 sums of two u8 x i8
//   products saturate beyond 2^15; ONNX Runtime's reduce_range); the bias
//   i32 at scale sx * sw;
// - a Relu, or a Clip with constant bounds, that alone reads the result is
//   absorbed: the output is quantized with its range, whose saturation then
//   clamps as it did (the range holds 0 and lies within the Clip's bounds).
// Then a QuantizeLinear of a DequantizeLinear with the same per-tensor scale
// and zero point is the integer value itself: consecutive quantized ops
// pass u8 tensors, and float values remain only at the edges of integer
// regions (a residual Add, a pooling, the graph's outputs); a value
// quantized twice alike is quantized once.
#include "PassUtils.h"
#include "WinogradChoice.h"

#include "cuvil/passes/Passes.h"
#include "cuvil/passes/Precision.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cuvil {
namespace {

struct Candidate {
  Node *op;
  Node *absorbed;           // the Relu or Clip quantized with the result, or null
  const Value *input;       // the activation
  const Value *represented; // what the dequantized result replaces
};

bool isF32(const Value *value) {
  return value && value->hasType() && value->type().dtype == DType::F32;
}

bool constantF32(const Value *value) { return isF32(value) && value->isConstant(); }

// A Relu, or a Clip with constant bounds around 0, reading `value` alone.
// (A range widened to hold 0 then stays within the bounds.)
Node *absorbableActivation(const Value *value) {
  Node *user = soleUser(value);
  if (!user || user->input(0) != value)
    return nullptr;
  if (user->op() == "Relu")
    return user;
  if (user->op() != "Clip")
    return nullptr;
  for (size_t i = 1; i < std::min<size_t>(user->numInputs(), 3); ++i) {
    const Value *bound = user->input(i);
    if (!bound)
      continue;
    if (!bound->isConstant() || bound->constant().numElements() != 1)
      return nullptr;
    double limit = bound->constant().getDouble(0);
    if (i == 1 ? limit > 0 : limit < 0)
      return nullptr;
  }
  return user;
}

// The rows of a MatMul below which the integer GEMM does not pay: it packs
// B (the weights) at run time, once per block of rows.
constexpr int64_t kMinIntegerRows = 16;

bool isDepthwise(const Node *node) {
  if (!node || node->op() != "Conv" || node->getInt("group", 1) == 1 || !node->input(1)->hasType())
    return false;
  const Shape &w = node->input(1)->type().shape;
  return w.size() >= 2 && w[1].is(1) && w[0].is(node->getInt("group", 1));
}

bool isActivation(const Node *node) {
  return node && (node->op() == "Relu" || node->op() == "Clip");
}

// A convolution that feeds a depthwise one or reads one (through an
// activation): an inverted-residual block, which runs fused in FP32.
bool nextToDepthwise(const Node &conv) {
  const Node *producer = conv.input(0)->producer();
  if (isActivation(producer))
    producer = producer->input(0)->producer();
  if (isDepthwise(producer))
    return true;
  const Value *result = conv.output(0);
  if (Node *activation = soleUser(result); isActivation(activation))
    result = activation->output(0);
  for (const Use &use : result->uses())
    if (isDepthwise(use.node))
      return true;
  return false;
}

// Ops the integer kernels run faster than FP32: ungrouped convolutions
// (a grouped or depthwise one runs as one GEMM per group, a few rows
// each) but those Winograd runs (2.25x fewer multiplies than any direct
// kernel) and those of an inverted-residual block (fused in FP32, with
// its depthwise convolution: quantized, they lose that and gain a
// Quantize and a Dequantize), and MatMuls of enough rows.
bool quantizable(const Node &node, const PassContext &context) {
  if (node.numOutputs() != 1 || !isF32(node.input(0)) || node.input(0)->isConstant())
    return false;
  if (node.op() == "Conv") {
    const Value *w = node.input(1);
    size_t rank = w->hasType() ? w->type().shape.size() : 0;
    return constantF32(w) && (rank == 3 || rank == 4) && node.getInt("group", 1) == 1 &&
           (!node.hasInput(2) || constantF32(node.input(2))) &&
           !convRunsAsWinograd(node, w->constant().dims(), context) && !nextToDepthwise(node);
  }
  if (node.op() == "MatMul") {
    const Shape &a = node.input(0)->type().shape;
    if (!constantF32(node.input(1)) || node.input(1)->type().shape.size() != 2 || a.size() < 2)
      return false;
    Dim rows = numElements(std::span(a.data(), a.size() - 1));
    return rows.opt() >= kMinIntegerRows;
  }
  return false;
}

std::vector<Candidate> candidates(const Graph &graph, const PassContext &context) {
  std::vector<Candidate> found;
  for (const auto &node : graph.nodes()) {
    if (!quantizable(*node, context))
      continue;
    Node *absorbed = absorbableActivation(node->output(0));
    found.push_back(
        {node.get(), absorbed, node->input(0), absorbed ? absorbed->output(0) : node->output(0)});
  }
  return found;
}

// u8 scale and zero point of a calibrated range.
struct ActivationQuant {
  float scale;
  uint8_t zero;
};

ActivationQuant activationQuant(CalibratedRange range) {
  const double low = std::min(double(range.min), 0.0), high = std::max(double(range.max), 0.0);
  double scale = (high - low) / 255.0;
  if (!(scale > 0) || !std::isfinite(scale))
    scale = 1.0;
  double zero = std::nearbyint(-low / scale);
  return {float(scale), uint8_t(std::clamp(zero, 0.0, 255.0))};
}

Value *scalarConstant(Graph &graph, const std::string &name, DType dtype, double value) {
  Tensor tensor(TensorType{dtype, {}});
  tensor.setDouble(0, value);
  return graph.addConstant(graph.uniqueName(name), std::move(tensor));
}

// Weights quantized symmetrically per channel: `channels` groups of the
// flat weights, channel c at flat index (i / inner) % channels.
struct QuantizedWeights {
  Tensor values, scales;
};

constexpr float kWeightLimit = 63.0f;

QuantizedWeights quantizeWeights(const Tensor &weights, int64_t channels, int64_t inner) {
  const int64_t count = weights.numElements();
  const float *w = weights.data<float>();
  std::vector<float> maxAbs(channels, 0.0f);
  for (int64_t i = 0; i < count; ++i) {
    float &peak = maxAbs[(i / inner) % channels];
    peak = std::max(peak, std::fabs(w[i]));
  }
  Tensor scales(TensorType{DType::F32, {channels}});
  for (int64_t c = 0; c < channels; ++c)
    scales.mutableData<float>()[c] = maxAbs[c] > 0 ? maxAbs[c] / kWeightLimit : 1.0f;
  Tensor values(TensorType{DType::I8, weights.shape()});
  int8_t *q = values.mutableData<int8_t>();
  for (int64_t i = 0; i < count; ++i) {
    float scaled = w[i] / scales.data<float>()[(i / inner) % channels];
    q[i] = int8_t(std::clamp(std::nearbyint(scaled), -kWeightLimit, kWeightLimit));
  }
  return {std::move(values), std::move(scales)};
}

// The bias at scale sx * sw[m], zero point 0.
Tensor quantizeBias(const Tensor &bias, float inputScale, const Tensor &weightScales) {
  const int64_t channels = bias.numElements();
  Tensor values(TensorType{DType::I32, {channels}});
  for (int64_t m = 0; m < channels; ++m) {
    double scaled = bias.getDouble(m) / (double(inputScale) * weightScales.data<float>()[m]);
    values.mutableData<int32_t>()[m] =
        int32_t(std::clamp(std::nearbyint(scaled), double(std::numeric_limits<int32_t>::min()),
                           double(std::numeric_limits<int32_t>::max())));
  }
  return values;
}

Status quantize(Graph &graph, const Candidate &c, CalibratedRange inputRange,
                CalibratedRange outputRange) {
  Node &op = *c.op;
  const std::string base = op.output(0)->name();
  const ActivationQuant in = activationQuant(inputRange), out = activationQuant(outputRange);
  Value *inScale = scalarConstant(graph, base + ".x_scale", DType::F32, in.scale);
  Value *inZero = scalarConstant(graph, base + ".x_zero", DType::U8, in.zero);
  Value *outScale = scalarConstant(graph, base + ".y_scale", DType::F32, out.scale);
  Value *outZero = scalarConstant(graph, base + ".y_zero", DType::U8, out.zero);
  const Tensor &weights = op.input(1)->constant();
  const bool conv = op.op() == "Conv";
  // Conv weights [M, C/g, k...] per output channel M; MatMul's [K, N] per
  // column N.
  const int64_t channels = conv ? weights.dim(0) : weights.dim(1);
  const int64_t inner = conv ? weights.numElements() / channels : 1;
  QuantizedWeights w = quantizeWeights(weights, channels, inner);
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

} // namespace

std::vector<const Value *> valuesToCalibrate(const Graph &graph, const PassContext &context) {
  std::vector<const Value *> values;
  auto add = [&](const Value *value) {
    if (std::find(values.begin(), values.end(), value) == values.end())
      values.push_back(value);
  };
  for (const Candidate &c : candidates(graph, context)) {
    add(c.input);
    add(c.represented);
  }
  return values;
}

Status runAssignPrecision(Graph &graph, PassContext &context) {
  const PrecisionOptions &precision = context.precision;
  if (precision.policy == PrecisionPolicy::FP32)
    return Status::success();
  // Ranges are looked up before any rewrite renames the values.
  struct Planned {
    Candidate candidate;
    CalibratedRange input, output;
  };
  std::vector<Planned> planned;
  for (const Candidate &c : candidates(graph, context)) {
    auto input = precision.ranges.find(c.input->name());
    auto output = precision.ranges.find(c.represented->name());
    if (input != precision.ranges.end() && output != precision.ranges.end())
      planned.push_back({c, input->second, output->second});
  }
  context.precisionStats.quantizable += candidates(graph, context).size();
  context.precisionStats.quantized += planned.size();
  for (const Planned &p : planned) {
    std::string described = p.candidate.op->describe(); // the node is gone after
    CUVIL_TRY(quantize(graph, p.candidate, p.input, p.output).withContext(described));
  }
  cancelRequantization(graph);
  mergeRequantization(graph);
  graph.eraseUnusedConstants();
  return Status::success();
}

} // namespace cuvil
