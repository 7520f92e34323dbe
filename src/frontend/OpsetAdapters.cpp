#include "OpsetAdapters.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <limits>

namespace cuvil {
namespace {

// Moves integer-list attribute `name` to input `index` as an i64 constant
// (omitted when the attribute is absent).
void intsAttributeToInput(Graph &graph, Node &node, const std::string &name, size_t index) {
  if (!node.hasAttr(name))
    return;
  std::vector<int64_t> values = node.getInts(name);
  node.removeAttr(name);
  Value *constant = graph.addConstant(fmt::format("{}.{}", node.output(0)->name(), name),
                                      Tensor::fromInt64s(values, {int64_t(values.size())}));
  node.setInput(index, constant);
}

Status reduceAxes(Graph &graph, Node &node, std::vector<Value *> &results, const AdaptContext &) {
  intsAttributeToInput(graph, node, "axes", 1);
  return Status::success();
}

Status splitSizes(Graph &graph, Node &node, std::vector<Value *> &results, const AdaptContext &) {
  intsAttributeToInput(graph, node, "split", 1);
  return Status::success();
}

Status sliceAttributes(Graph &graph, Node &node, std::vector<Value *> &results,
                       const AdaptContext &) {
  intsAttributeToInput(graph, node, "starts", 1);
  intsAttributeToInput(graph, node, "ends", 2);
  intsAttributeToInput(graph, node, "axes", 3);
  return Status::success();
}

Status clipBounds(Graph &graph, Node &node, std::vector<Value *> &results, const AdaptContext &) {
  const float infinity = std::numeric_limits<float>::infinity();
  float low = node.getFloat("min", -infinity), high = node.getFloat("max", infinity);
  node.removeAttr("min");
  node.removeAttr("max");
  if (low != -infinity)
    node.setInput(1, graph.addConstant(node.output(0)->name() + ".min", Tensor::scalarF32(low)));
  if (high != infinity)
    node.setInput(2, graph.addConstant(node.output(0)->name() + ".max", Tensor::scalarF32(high)));
  return Status::success();
}

// Before opset 13, Softmax(axis) (and LogSoftmax, Hardmax) flattened its
// input to 2-D at `axis` (default 1) and normalised each row. Flatten ->
// Softmax(-1) -> Reshape back to the input's shape says the same with
// today's ops.
Status legacySoftmax(Graph &graph, Node &node, std::vector<Value *> &results,
                     const AdaptContext &) {
  Value *input = node.input(0);
  int64_t axis = node.getInt("axis", 1);
  std::string base = node.output(0)->name();
  Node *flatten = graph.addNode("Flatten", {input}, {base + ".2d"}, &node);
  flatten->setAttr("axis", axis);
  Node *shape = graph.addNode("Shape", {input}, {base + ".shape"}, &node);
  Node *softmax = graph.addNode(node.op(), {flatten->output(0)}, {base + ".rows"}, &node);
  softmax->setAttr("axis", int64_t(-1));
  softmax->setName(node.name());
  Node *reshape =
      graph.addNode("Reshape", {softmax->output(0), shape->output(0)}, {base + ".nd"}, &node);
  graph.replaceAllUsesWith(node.output(0), reshape->output(0));
  graph.eraseNode(&node);
  results = {reshape->output(0)};
  return Status::success();
}

Status padAttributes(Graph &graph, Node &node, std::vector<Value *> &results,
                     const AdaptContext &) {
  intsAttributeToInput(graph, node, "pads", 1);
  float value = node.getFloat("value", 0.0f);
  node.removeAttr("value");
  if (value != 0.0f)
    node.setInput(2,
                  graph.addConstant(node.output(0)->name() + ".value", Tensor::scalarF32(value)));
  return Status::success();
}

Status batchNormSpatial(Graph &, Node &node, std::vector<Value *> &results, const AdaptContext &) {
  node.removeAttr("is_test"); // before opset 7; inference is what we compile
  if (node.getInt("spatial", 1) != 1)
    return Status::error("BatchNormalization with spatial=0 is not supported");
  node.removeAttr("spatial");
  return Status::success();
}

Status dropRatioAttribute(Graph &, Node &node, std::vector<Value *> &results,
                          const AdaptContext &) {
  node.removeAttr("is_test");
  return Status::success();
}

// Max, Min, Sum and Mean take any number of inputs, all broadcast together;
// the IR has their binary forms. One input is the input itself (an
// Identity), more a left-to-right chain of the binary op; Mean divides the
// sum by the input count (a constant cast like the sum, which folds).
Status variadicToBinary(Graph &graph, Node &node, std::vector<Value *> &results,
                        const AdaptContext &) {
  size_t count = node.numInputs();
  if (count == 0 ||
      std::find(node.inputs().begin(), node.inputs().end(), nullptr) != node.inputs().end())
    return Status::error(fmt::format("{} takes one or more inputs, none omitted", node.op()));
  bool sums = node.op() == "Sum" || node.op() == "Mean";
  if (count == 2 && !sums)
    return Status::success();
  std::string binary = sums ? "Add" : node.op();
  std::string base = node.output(0)->name();
  Node *last =
      count == 1 ? graph.addNode("Identity", {node.input(0)}, {base + ".1"}, &node) : nullptr;
  Value *sum = node.input(0);
  for (size_t i = 1; i < count; ++i) {
    last = graph.addNode(binary, {sum, node.input(i)}, {fmt::format("{}.{}", base, i)}, &node);
    sum = last->output(0);
  }
  if (node.op() == "Mean" && count > 1) {
    Value *n = graph.addConstant(base + ".count", Tensor::scalarF32(float(count)));
    Node *cast = graph.addNode("CastLike", {n, sum}, {base + ".count_like"}, &node);
    last = graph.addNode("Div", {sum, cast->output(0)}, {base + ".mean"}, &node);
  }
  last->setName(node.name());
  graph.replaceAllUsesWith(node.output(0), last->output(0));
  graph.eraseNode(&node);
  results = {last->output(0)};
  return Status::success();
}

// ReduceLogSum(x) = Log(ReduceSum(x)); ReduceLogSumExp(x) = m +
// Log(ReduceSum(Exp(x - m))) with m = ReduceMax(x) over the same axes, so
// that Exp cannot overflow. The nodes take the axes as an input.
Status logSumReduction(Graph &graph, Node &node, std::vector<Value *> &results,
                       const AdaptContext &) {
  intsAttributeToInput(graph, node, "axes", 1);
  std::string base = node.output(0)->name();
  int64_t keepdims = node.getInt("keepdims", 1);
  auto reduce = [&](const char *op, Value *x, int64_t keep, const std::string &name) {
    std::vector<Value *> inputs = {x};
    if (node.hasInput(1))
      inputs.push_back(node.input(1));
    Node *reduction = graph.addNode(op, inputs, {name}, &node);
    reduction->setAttr("keepdims", keep);
    if (node.hasAttr("noop_with_empty_axes"))
      reduction->setAttr("noop_with_empty_axes", node.getInt("noop_with_empty_axes", 0));
    return reduction->output(0);
  };
  auto apply = [&](const char *op, std::vector<Value *> inputs, const std::string &name) {
    return graph.addNode(op, inputs, {name}, &node)->output(0);
  };
  Value *x = node.input(0), *result;
  if (node.op() == "ReduceLogSum") {
    result = apply("Log", {reduce("ReduceSum", x, keepdims, base + ".sum")}, base + ".log");
  } else {
    Value *peak = reduce("ReduceMax", x, 1, base + ".max");
    Value *shifted = apply("Exp", {apply("Sub", {x, peak}, base + ".shifted")}, base + ".exp");
    Value *log =
        apply("Log", {reduce("ReduceSum", shifted, keepdims, base + ".sum")}, base + ".log");
    Value *offset = keepdims ? peak : reduce("ReduceMax", x, 0, base + ".max_dropped");
    result = apply("Add", {log, offset}, base + ".lse");
  }
  Node *producer = result->producer();
  producer->setName(node.name());
  graph.replaceAllUsesWith(node.output(0), result);
  graph.eraseNode(&node);
  results = {result};
  return Status::success();
}

// Before opset 7, elementwise ops broadcast only with broadcast=1, and
// then B's dims match A's from `axis` on (default: A's trailing dims).
// Trailing 1-dims appended to B say the same in numpy's rules.
Status legacyBroadcast(Graph &graph, Node &node, std::vector<Value *> &results,
                       const AdaptContext &context) {
  int64_t broadcast = node.getInt("broadcast", 0);
  bool hasAxis = node.hasAttr("axis");
  int64_t axis = node.getInt("axis", 0);
  node.removeAttr("broadcast");
  node.removeAttr("axis");
  if (broadcast == 0 || !hasAxis || node.numInputs() != 2)
    return Status::success();
  auto rankOf = [&](const Value *value) -> std::optional<int64_t> {
    if (value->isConstant())
      return int64_t(value->constant().shape().size());
    auto known = context.ranks.find(value->name());
    return known == context.ranks.end() ? std::nullopt : std::optional(known->second);
  };
  std::optional<int64_t> rankA = rankOf(node.input(0)), rankB = rankOf(node.input(1));
  if (!rankA || !rankB)
    return Status::error(fmt::format("broadcast with axis {} needs the ranks of both inputs, "
                                     "which shape inference could not find",
                                     axis));
  axis = axis < 0 ? axis + *rankA : axis;
  int64_t trailing = *rankA - axis - *rankB;
  if (axis < 0 || trailing < 0)
    return Status::error(
        fmt::format("B (rank {}) does not fit A (rank {}) at axis {}", *rankB, *rankA, axis));
  if (trailing == 0)
    return Status::success();
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < trailing; ++i)
    axes.push_back(*rankB + i);
  std::string base = node.output(0)->name() + ".b";
  Value *axesValue =
      graph.addConstant(base + ".axes", Tensor::fromInt64s(axes, {int64_t(axes.size())}));
  Node *unsqueeze = graph.addNode("Unsqueeze", {node.input(1), axesValue}, {base}, &node);
  node.setInput(1, unsqueeze->output(0));
  return Status::success();
}

// PRelu before opset 7 applied a slope of C values per channel (axis 1),
// one value to all: the legacy broadcast at axis 1.
Status legacyPreluSlope(Graph &graph, Node &node, std::vector<Value *> &results,
                        const AdaptContext &context) {
  const Value *slope = node.input(1);
  if (slope && slope->isConstant() && slope->constant().numElements() == 1)
    return Status::success();
  node.setAttr("broadcast", int64_t(1));
  node.setAttr("axis", int64_t(1));
  return legacyBroadcast(graph, node, results, context);
}

// Gemm before opset 7 marked C's broadcasting, which is now implied.
Status dropBroadcastAttribute(Graph &, Node &node, std::vector<Value *> &, const AdaptContext &) {
  node.removeAttr("broadcast");
  return Status::success();
}

// Reshape before opset 5 took its target as an attribute.
Status reshapeAttribute(Graph &graph, Node &node, std::vector<Value *> &results,
                        const AdaptContext &) {
  intsAttributeToInput(graph, node, "shape", 1);
  return Status::success();
}

// Concat before opset 4 defaulted to axis 1.
Status concatDefaultAxis(Graph &, Node &node, std::vector<Value *> &, const AdaptContext &) {
  if (!node.hasAttr("axis"))
    node.setAttr("axis", int64_t(1));
  return Status::success();
}

// TopK before opset 10: k is an attribute; the K input since.
Status topKAttribute(Graph &graph, Node &node, std::vector<Value *> &results,
                     const AdaptContext &) {
  if (!node.hasAttr("k"))
    return Status::error("attribute k is required before opset 10");
  int64_t k = node.getInt("k", 0);
  node.removeAttr("k");
  node.setInput(1, graph.addConstant(fmt::format("{}.k", node.output(0)->name()),
                                     Tensor::fromInt64s(std::vector<int64_t>{k}, {1})));
  return Status::success();
}

// Scan before opset 9 has a batch axis first (and sequence_lens first of
// its inputs): the IR's Scan runs that form with `batched`.
Status batchedScan(Graph &, Node &node, std::vector<Value *> &, const AdaptContext &) {
  if (node.input(0))
    return Status::error("sequence_lens is not supported (every sequence runs the full length)");
  std::vector<Value *> operands(node.inputs().begin() + 1, node.inputs().end());
  node.removeTrailingInputs(0);
  for (Value *operand : operands)
    node.addInput(operand);
  if (node.hasAttr("directions")) {
    node.setAttr("scan_input_directions", node.getInts("directions"));
    node.removeAttr("directions");
  }
  node.setAttr("batched", int64_t(1));
  return Status::success();
}

// A string pool becomes an integer one: each distinct pool string gets its
// index in their sorted table, and the tokens theirs through a StringIndex
// (-1, in no n-gram, for a token not in the pool).
void tfIdfStringPool(Graph &graph, Node &node, const std::string &base) {
  std::vector<std::string> pool = node.getStrings("pool_strings");
  node.removeAttr("pool_strings");
  std::vector<std::string> table = pool;
  std::sort(table.begin(), table.end());
  table.erase(std::unique(table.begin(), table.end()), table.end());
  std::vector<int64_t> ids;
  for (const std::string &text : pool)
    ids.push_back(std::lower_bound(table.begin(), table.end(), text) - table.begin());
  node.setAttr("pool_int64s", ids);
  auto [bytes, starts] = stringTable(graph, base + ".pool", table);
  Node *index =
      graph.addNode("StringIndex", {node.input(0), bytes, starts}, {base + ".token_ids"}, &node);
  node.setInput(0, index->output(0));
}

// TfIdfVectorizer's pool attributes as constant inputs, which its shape
// rule, reference and kernel read: the int64 pool, ngram_counts,
// ngram_indexes and weights (empty when absent). A string pool becomes an
// integer one first.
Status tfIdfPool(Graph &graph, Node &node, std::vector<Value *> &, const AdaptContext &) {
  const std::string base = node.output(0)->name();
  if (node.hasAttr("pool_strings"))
    tfIdfStringPool(graph, node, base);
  auto move = [&](const char *name) {
    std::vector<int64_t> values = node.getInts(name);
    node.removeAttr(name);
    node.addInput(
        graph.addConstant(base + "." + name, Tensor::fromInt64s(values, {int64_t(values.size())})));
  };
  move("pool_int64s");
  move("ngram_counts");
  move("ngram_indexes");
  std::vector<float> weights = node.getFloats("weights");
  node.removeAttr("weights");
  node.addInput(
      graph.addConstant(base + ".weights", Tensor::fromFloats(weights, {int64_t(weights.size())})));
  return Status::success();
}

// StringNormalizer's stopwords as constant inputs, which its kernel reads:
// their bytes end to end (u8) and where each starts (i64, with the end).
Status stringNormalizerStopwords(Graph &graph, Node &node, std::vector<Value *> &,
                                 const AdaptContext &) {
  auto [bytes, starts] =
      stringTable(graph, node.output(0)->name() + ".stopword", node.getStrings("stopwords"));
  node.removeAttr("stopwords");
  node.addInput(bytes);
  node.addInput(starts);
  return Status::success();
}

// RNN, GRU and LSTM before opset 7 had `output_sequence`, which said
// whether Y is wanted; the node's named results say it now. GRU-1's
// default direction was spelt "foward".
Status legacyRecurrence(Graph &, Node &node, std::vector<Value *> &, const AdaptContext &) {
  node.removeAttr("output_sequence");
  if (node.getString("direction", "forward") == "foward")
    node.setAttr("direction", std::string("forward"));
  return Status::success();
}

// Scatter (opsets 9 to 10, deprecated at 11) is ScatterElements without
// `reduction`: the same node under the newer name.
Status scatterElements(Graph &graph, Node &node, std::vector<Value *> &results,
                       const AdaptContext &) {
  Node *scatter = graph.addNode("ScatterElements", node.inputs(),
                                {node.output(0)->name() + ".elements"}, &node);
  scatter->setName(node.name());
  for (const auto &[name, value] : node.attributes())
    scatter->setAttr(name, value);
  graph.replaceAllUsesWith(node.output(0), scatter->output(0));
  graph.eraseNode(&node);
  results = {scatter->output(0)};
  return Status::success();
}

// Resize before opset 11 took (X, scales) and mapped coordinates
// asymmetrically; nearest truncated the coordinate when upsampling and
// rounded it up when downsampling (ONNX Runtime keeps this for those
// opsets). Upsample is the same op with scales >= 1: an input at opset 9,
// an attribute at 7 and 8, and before 7 height_scale and width_scale of an
// NCHW input, with linear called "bilinear".
Status legacyResize(Graph &graph, Node &node, std::vector<Value *> &results,
                    const AdaptContext &context) {
  std::string base = node.output(0)->name();
  bool upsample = node.op() == "Upsample";
  Value *scales = node.input(1);
  auto scalesConstant = [&](std::vector<float> values) {
    return graph.addConstant(base + ".scales",
                             Tensor::fromFloats(values, {int64_t(values.size())}));
  };
  if (upsample && context.opset < 7) {
    if (!node.hasAttr("height_scale") || !node.hasAttr("width_scale"))
      return Status::error("Upsample before opset 7 needs height_scale and width_scale");
    scales = scalesConstant(
        {1.0f, 1.0f, node.getFloat("height_scale", 1.0f), node.getFloat("width_scale", 1.0f)});
  } else if (upsample && context.opset < 9) {
    if (!node.hasAttr("scales"))
      return Status::error("Upsample before opset 9 needs the scales attribute");
    scales = scalesConstant(node.getFloats("scales"));
  }
  if (!scales)
    return Status::error(fmt::format("{} needs scales", node.op()));
  std::string mode = node.getString("mode", "nearest");
  if (mode == "bilinear")
    mode = "linear";
  std::string rounding = "floor";
  if (mode == "nearest" && !upsample) {
    if (!scales->isConstant())
      return Status::error("Resize before opset 11 in nearest mode needs constant scales: its "
                           "rounding depends on whether they up- or downsample");
    std::vector<float> values;
    for (int64_t i = 0; i < scales->constant().numElements(); ++i)
      values.push_back(float(scales->constant().getDouble(i)));
    bool up = std::all_of(values.begin(), values.end(), [](float s) { return s >= 1.0f; });
    bool down = std::all_of(values.begin(), values.end(), [](float s) { return s <= 1.0f; });
    if (!up && !down)
      return Status::error("Resize before opset 11 in nearest mode that up- and downsamples at "
                           "once is not supported");
    rounding = up ? "floor" : "ceil";
  }
  Node *resize =
      graph.addNode("Resize", {node.input(0), nullptr, scales}, {base + ".resized"}, &node);
  resize->setAttr("mode", mode);
  resize->setAttr("coordinate_transformation_mode", std::string("asymmetric"));
  resize->setAttr("nearest_mode", rounding);
  resize->setName(node.name());
  graph.replaceAllUsesWith(node.output(0), resize->output(0));
  graph.eraseNode(&node);
  results = {resize->output(0)};
  return Status::success();
}

// GridSample before opset 20 named its modes bilinear and bicubic.
Status gridSampleModes(Graph &, Node &node, std::vector<Value *> &, const AdaptContext &) {
  std::string mode = node.getString("mode", "bilinear");
  node.setAttr("mode", std::string(mode == "bilinear"  ? "linear"
                                   : mode == "bicubic" ? "cubic"
                                                       : mode));
  return Status::success();
}

// RoiAlign before opset 16 had no coordinate_transformation_mode and
// behaved as output_half_pixel (today's default is half_pixel).
Status roiAlignCoordinates(Graph &, Node &node, std::vector<Value *> &, const AdaptContext &) {
  node.setAttr("coordinate_transformation_mode", std::string("output_half_pixel"));
  return Status::success();
}

// DFT before opset 20: the axis is an attribute (default 1); the axis
// input since (default -2).
Status dftAxisAttribute(Graph &graph, Node &node, std::vector<Value *> &results,
                        const AdaptContext &) {
  int64_t axis = node.getInt("axis", 1);
  node.removeAttr("axis");
  node.setInput(2, graph.addConstant(fmt::format("{}.axis", node.output(0)->name()),
                                     Tensor::fromInt64s(std::vector<int64_t>{axis}, {})));
  return Status::success();
}

struct Adapter {
  std::string_view op;
  int64_t untilOpset; // applies to models with opset < untilOpset
  Status (*apply)(Graph &, Node &, std::vector<Value *> &results, const AdaptContext &);
};

// GroupNormalization before opset 21 scales and shifts per group: scale
// and bias [num_groups] (ONNX's reference and ONNX Runtime repeat each over
// its group's channels). Opset 21's per-channel [C] form:
//   p' = Reshape(Expand(Unsqueeze(p, [1]), [G, C / G]), [-1])
// with C from Shape(x) (a constant once x's channels are known).
Status perGroupAffine(Graph &graph, Node &node, std::vector<Value *> &, const AdaptContext &) {
  const std::string base = node.output(0)->name();
  const int64_t groups = node.getInt("num_groups", 0);
  auto ints = [&](std::vector<int64_t> values, const char *suffix) {
    return graph.addConstant(graph.uniqueName(base + suffix),
                             Tensor::fromInt64s(values, {int64_t(values.size())}));
  };
  auto add = [&](const char *op, std::vector<Value *> inputs, const char *suffix) {
    return graph.addNode(op, inputs, {graph.uniqueName(base + suffix)}, &node);
  };
  Node *shape = add("Shape", {node.input(0)}, ".x_shape");
  Node *channels =
      add("Slice", {shape->output(0), ints({1}, ".one"), ints({2}, ".two")}, ".channels");
  Node *perGroup = add("Div", {channels->output(0), ints({groups}, ".groups")}, ".per_group");
  Node *grid = add("Concat", {ints({groups}, ".grid_groups"), perGroup->output(0)}, ".grid");
  grid->setAttr("axis", int64_t(0));
  for (size_t i : {size_t(1), size_t(2)}) {
    Node *column = add("Unsqueeze", {node.input(i), ints({1}, ".column_axis")},
                       i == 1 ? ".scale_column" : ".bias_column");
    Node *repeated = add("Expand", {column->output(0), grid->output(0)},
                         i == 1 ? ".scale_repeated" : ".bias_repeated");
    Node *flat = add("Reshape", {repeated->output(0), ints({-1}, ".flat")},
                     i == 1 ? ".scale_per_channel" : ".bias_per_channel");
    node.setInput(i, flat->output(0));
  }
  return Status::success();
}

constexpr int64_t kEveryOpset = std::numeric_limits<int64_t>::max();

constexpr std::array<Adapter, 54> kAdapters = {{
    {"ReduceMean", 18, reduceAxes},
    {"ReduceMax", 18, reduceAxes},
    {"ReduceMin", 18, reduceAxes},
    {"ReduceProd", 18, reduceAxes},
    {"ReduceL1", 18, reduceAxes},
    {"ReduceL2", 18, reduceAxes},
    {"ReduceSumSquare", 18, reduceAxes},
    {"ReduceSum", 13, reduceAxes},
    {"Squeeze", 13, reduceAxes},
    {"Unsqueeze", 13, reduceAxes},
    {"Split", 13, splitSizes},
    {"Slice", 10, sliceAttributes},
    {"Clip", 11, clipBounds},
    {"Pad", 11, padAttributes},
    {"Softmax", 13, legacySoftmax},
    {"LogSoftmax", 13, legacySoftmax},
    {"Hardmax", 13, legacySoftmax},
    {"BatchNormalization", 9, batchNormSpatial},
    {"Dropout", 12, dropRatioAttribute},
    {"ReduceLogSum", kEveryOpset, logSumReduction},
    {"ReduceLogSumExp", kEveryOpset, logSumReduction},
    {"Max", kEveryOpset, variadicToBinary},
    {"Min", kEveryOpset, variadicToBinary},
    {"Sum", kEveryOpset, variadicToBinary},
    {"Mean", kEveryOpset, variadicToBinary},
    {"Add", 7, legacyBroadcast},
    {"Sub", 7, legacyBroadcast},
    {"Mul", 7, legacyBroadcast},
    {"Div", 7, legacyBroadcast},
    {"Pow", 7, legacyBroadcast},
    {"And", 7, legacyBroadcast},
    {"Or", 7, legacyBroadcast},
    {"Xor", 7, legacyBroadcast},
    {"Equal", 7, legacyBroadcast},
    {"Greater", 7, legacyBroadcast},
    {"Less", 7, legacyBroadcast},
    {"Gemm", 7, dropBroadcastAttribute},
    {"PRelu", 7, legacyPreluSlope},
    {"Reshape", 5, reshapeAttribute},
    {"Concat", 4, concatDefaultAxis},
    {"TopK", 10, topKAttribute},
    {"Scan", 9, batchedScan},
    {"TfIdfVectorizer", kEveryOpset, tfIdfPool},
    {"StringNormalizer", kEveryOpset, stringNormalizerStopwords},
    {"RNN", 7, legacyRecurrence},
    {"GRU", 7, legacyRecurrence},
    {"LSTM", 7, legacyRecurrence},
    {"Scatter", kEveryOpset, scatterElements},
    {"Resize", 11, legacyResize},
    {"Upsample", 10, legacyResize},
    {"GridSample", 20, gridSampleModes},
    {"RoiAlign", 16, roiAlignCoordinates},
    {"DFT", 20, dftAxisAttribute},
    {"GroupNormalization", 21, perGroupAffine},
}};

} // namespace

std::pair<Value *, Value *> stringTable(Graph &graph, const std::string &base,
                                        const std::vector<std::string> &strings) {
  std::vector<int64_t> bytes, starts = {0};
  for (const std::string &text : strings) {
    for (char c : text)
      bytes.push_back(uint8_t(c));
    starts.push_back(int64_t(bytes.size()));
  }
  return {
      graph.addConstant(base + ".bytes",
                        Tensor::fromInt64s(bytes, {int64_t(bytes.size())}, DType::U8)),
      graph.addConstant(base + ".starts", Tensor::fromInt64s(starts, {int64_t(starts.size())}))};
}

Value *addStringConstant(Graph &graph, const std::string &name, const Shape &shape,
                         const std::vector<std::string> &strings) {
  auto [bytes, starts] = stringTable(graph, name, strings);
  Node *node = graph.addNode("StringConstant", {bytes, starts}, {name});
  std::vector<int64_t> dims;
  for (const Dim &dim : shape)
    dims.push_back(dim.constant());
  node->setAttr("shape", dims);
  return node->output(0);
}

bool adaptsAway(std::string_view op, int64_t opset) {
  return std::any_of(kAdapters.begin(), kAdapters.end(), [&](const Adapter &adapter) {
    return adapter.op == op && opset < adapter.untilOpset;
  });
}

Expected<std::vector<Value *>> adaptToLatestOpset(Graph &graph, Node &node,
                                                  const AdaptContext &context) {
  // Opsets before 6 marked inputs an op could overwrite; nothing reads it.
  if (context.opset < 6)
    node.removeAttr("consumed_inputs");
  std::vector<Value *> results = node.outputs();
  for (const Adapter &adapter : kAdapters) {
    if (adapter.op == node.op() && context.opset < adapter.untilOpset) {
      CUVIL_TRY(adapter.apply(graph, node, results, context)); // may erase the node
      break;
    }
  }
  return results;
}

} // namespace cuvil
