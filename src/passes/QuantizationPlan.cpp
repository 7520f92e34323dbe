#include "QuantizationPlan.h"

#include "PassUtils.h"
#include "QuantizedSelections.h"
#include "WinogradChoice.h"

#include "cuvil/kernels/PairedByteProducts.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cuvil {
namespace {

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

// The op `value` comes from, looking through a pre-quantized model's
// QuantizeLinear -> DequantizeLinear pair and an activation.
const Node *sourceOf(const Value *value) {
  auto throughPair = [](const Value *v) {
    const Node *dq = v->producer();
    const Node *q = dq && dq->op() == "DequantizeLinear" ? dq->input(0)->producer() : nullptr;
    return q && q->op() == "QuantizeLinear" ? q->input(0)->producer() : v->producer();
  };
  const Node *producer = throughPair(value);
  return isActivation(producer) ? throughPair(producer->input(0)) : producer;
}

} // namespace

bool nextToDepthwise(const Node &conv) {
  if (isDepthwise(sourceOf(conv.input(0))))
    return true;
  // The readers of the result, of its activation's, and of their
  // QuantizeLinear -> DequantizeLinear pairs.
  std::vector<const Value *> results = {conv.output(0)};
  for (size_t i = 0; i < results.size(); ++i)
    for (const Use &use : results[i]->uses()) {
      const Node *reader = use.node;
      if (isDepthwise(reader))
        return true;
      const bool passes = (isActivation(reader) && i == 0) || reader->op() == "QuantizeLinear" ||
                          reader->op() == "DequantizeLinear";
      if (passes && results.size() < 8)
        results.push_back(reader->output(0));
    }
  return false;
}

namespace {

// Ops the integer kernels run faster than FP32: ungrouped convolutions
// (a grouped one runs as one GEMM per group, a few rows each; a depthwise
// one over u8 planes, IntegerDepthwiseTask.h, 5-8x slower than FP32's
// blocked kernel on MobileNetV2's 7x7 to 28x28 layers on Zen 3) but those
// Winograd runs faster (winogradOverInteger) and those of an inverted-residual block (fused in
// FP32, with its depthwise convolution: quantized, they lose that and gain a Quantize and a
// Dequantize), and MatMuls of enough rows.
bool quantizable(const Node &node, const PassContext &context) {
  if (node.numOutputs() != 1 || !isF32(node.input(0)) || node.input(0)->isConstant())
    return false;
  if (node.op() == "Conv") {
    const Value *w = node.input(1);
    size_t rank = w->hasType() ? w->type().shape.size() : 0;
    return constantF32(w) && (rank == 3 || rank == 4) && node.getInt("group", 1) == 1 &&
           (!node.hasInput(2) || constantF32(node.input(2))) &&
           !winogradOverInteger(node, w->constant().dims(), context) && !nextToDepthwise(node);
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

} // namespace

bool quantizesRowsAtRunTime(const Node &op) { return op.op() == "MatMul"; }

std::vector<Candidate> candidates(const Graph &graph, const PassContext &context) {
  std::vector<Candidate> found;
  for (const auto &node : graph.nodes()) {
    if (!quantizable(*node, context))
      continue;
    Node *absorbed =
        quantizesRowsAtRunTime(*node) ? nullptr : absorbableActivation(node->output(0));
    found.push_back(
        {node.get(), absorbed, node->input(0), absorbed ? absorbed->output(0) : node->output(0)});
  }
  // An input that selects elements of another candidate's result (a CNN
  // stem's MaxPool) takes that result's range, which holds its own: the
  // selection then runs on the 8-bit values (QuantizedSelections.h),
  // a quarter of the bytes, and the stem writes 8 bits.
  for (Candidate &c : found) {
    const Value *source = c.input;
    while (source->producer() && selectsElements(*source->producer()))
      source = source->producer()->input(0);
    if (source != c.input && std::any_of(found.begin(), found.end(), [&](const Candidate &other) {
          return other.represented == source;
        }))
      c.input = source;
  }
  return found;
}

WeightBound weightBoundFor(const CpuModel &cpu) {
  if (cpu.int8Dot)
    return {127, false};
  return cpu.i16PairProducts ? WeightBound{127, true} : WeightBound{63, false};
}

WeightBound combine(WeightBound a, WeightBound b) {
  return {std::min(a.limit, b.limit), a.pairedSets || b.pairedSets};
}

ActivationQuant activationQuant(CalibratedRange range) {
  const double low = std::min(double(range.min), 0.0), high = std::max(double(range.max), 0.0);
  double scale = (high - low) / 255.0;
  if (!(scale > 0) || !std::isfinite(scale))
    scale = 1.0;
  double zero = std::nearbyint(-low / scale);
  return {float(scale), uint8_t(std::clamp(zero, 0.0, 255.0))};
}

Value *addScalar(Graph &graph, const std::string &name, DType dtype, double value) {
  Tensor tensor(TensorType{dtype, {}});
  tensor.setDouble(0, value);
  return graph.addConstant(graph.uniqueName(name), std::move(tensor));
}

QuantizedWeights quantizeWeights(const Node &op, WeightBound bound) {
  const Tensor &weights = op.input(1)->constant();
  const bool conv = op.op() == "Conv";
  // A line of K per channel: a Conv's row [M, K...], a MatMul's column [K, N].
  const int64_t channels = conv ? weights.dim(0) : weights.dim(1);
  const int64_t K = weights.numElements() / channels;
  const int64_t kStride = conv ? 1 : channels, channelStride = conv ? K : 1;
  const float *w = weights.data<float>();
  Tensor scales(TensorType{DType::F32, {channels}});
  Tensor values(TensorType{DType::I8, weights.shape()});
  int8_t *q = values.mutableData<int8_t>();
  for (int64_t c = 0; c < channels; ++c) {
    const float *line = w + c * channelStride;
    int8_t *quantized = q + c * channelStride;
    float peak = 0.0f;
    for (int64_t k = 0; k < K; ++k)
      peak = std::max(peak, std::fabs(line[k * kStride]));
    auto quantizeAt = [&](int limit) {
      const float scale = peak > 0 ? peak / float(limit) : 1.0f;
      for (int64_t k = 0; k < K; ++k)
        quantized[k * kStride] = int8_t(
            std::clamp(std::nearbyint(line[k * kStride] / scale), -float(limit), float(limit)));
      return scale;
    };
    auto meetsSets = [&] {
      return pairedBytesExact(K, [&](int64_t k) { return quantized[k * kStride]; });
    };
    // The largest limit in [32, bound.limit] whose values meet the paired
    // sets (32 does: 4 * 32 = 128): the sets' sums grow with the limit,
    // so a binary search; the one kept is checked.
    int limit = bound.limit;
    quantizeAt(limit);
    if (bound.pairedSets && !meetsSets()) {
      int low = std::min(32, limit), high = limit - 1; // low meets them
      while (low < high) {
        const int middle = (low + high + 1) / 2;
        quantizeAt(middle);
        if (meetsSets())
          low = middle;
        else
          high = middle - 1;
      }
      limit = low;
    }
    scales.mutableData<float>()[c] = quantizeAt(limit);
  }
  return {std::move(values), std::move(scales)};
}

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

const std::string &layerName(const Candidate &c) { return c.op->output(0)->name(); }

double multiplyAccumulates(const Node &op) {
  double perOutput = 1; // Conv: C/g * k... of its weights [M, C/g, k...]; MatMul: A's K
  if (op.op() == "Conv") {
    const Shape &w = op.input(1)->type().shape;
    for (size_t d = 1; d < w.size(); ++d)
      perOutput *= double(w[d].opt());
  } else if (const Shape &a = op.input(0)->type().shape; !a.empty()) {
    perOutput = double(a.back().opt());
  }
  double outputs = 1;
  for (const Dim &dim : op.output(0)->type().shape)
    outputs *= double(dim.opt());
  return outputs * perOutput;
}

} // namespace cuvil
