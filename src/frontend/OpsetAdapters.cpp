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

Status reduceAxes(Graph &graph, Node &node, std::vector<Value *> &results) {
  intsAttributeToInput(graph, node, "axes", 1);
  return Status::success();
}

Status splitSizes(Graph &graph, Node &node, std::vector<Value *> &results) {
  intsAttributeToInput(graph, node, "split", 1);
  return Status::success();
}

Status sliceAttributes(Graph &graph, Node &node, std::vector<Value *> &results) {
  intsAttributeToInput(graph, node, "starts", 1);
  intsAttributeToInput(graph, node, "ends", 2);
  intsAttributeToInput(graph, node, "axes", 3);
  return Status::success();
}

Status clipBounds(Graph &graph, Node &node, std::vector<Value *> &results) {
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

// Before opset 13, Softmax(axis) flattened its input to 2-D at `axis`
// (default 1) and normalised each row. Flatten -> Softmax(-1) -> Reshape
// back to the input's shape says the same with today's ops.
Status legacySoftmax(Graph &graph, Node &node, std::vector<Value *> &results) {
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

Status padAttributes(Graph &graph, Node &node, std::vector<Value *> &results) {
  intsAttributeToInput(graph, node, "pads", 1);
  float value = node.getFloat("value", 0.0f);
  node.removeAttr("value");
  if (value != 0.0f)
    node.setInput(2,
                  graph.addConstant(node.output(0)->name() + ".value", Tensor::scalarF32(value)));
  return Status::success();
}

Status batchNormSpatial(Graph &, Node &node, std::vector<Value *> &results) {
  if (node.getInt("spatial", 1) != 1)
    return Status::error("BatchNormalization with spatial=0 is not supported");
  node.removeAttr("spatial");
  return Status::success();
}

Status dropRatioAttribute(Graph &, Node &node, std::vector<Value *> &results) {
  node.removeAttr("is_test");
  return Status::success();
}

// Max, Min and Sum take any number of inputs, all broadcast together; the
// IR has their binary forms. One input is the input itself (an Identity),
// more a left-to-right chain of the binary op.
Status variadicToBinary(Graph &graph, Node &node, std::vector<Value *> &results) {
  size_t count = node.numInputs();
  if (count == 0 ||
      std::find(node.inputs().begin(), node.inputs().end(), nullptr) != node.inputs().end())
    return Status::error(fmt::format("{} takes one or more inputs, none omitted", node.op()));
  if (count == 2 && node.op() != "Sum")
    return Status::success();
  std::string binary = node.op() == "Sum" ? "Add" : node.op();
  std::string base = node.output(0)->name();
  Node *last =
      count == 1 ? graph.addNode("Identity", {node.input(0)}, {base + ".1"}, &node) : nullptr;
  Value *sum = node.input(0);
  for (size_t i = 1; i < count; ++i) {
    last = graph.addNode(binary, {sum, node.input(i)}, {fmt::format("{}.{}", base, i)}, &node);
    sum = last->output(0);
  }
  last->setName(node.name());
  graph.replaceAllUsesWith(node.output(0), last->output(0));
  graph.eraseNode(&node);
  results = {last->output(0)};
  return Status::success();
}

struct Adapter {
  std::string_view op;
  int64_t untilOpset; // applies to models with opset < untilOpset
  Status (*apply)(Graph &, Node &, std::vector<Value *> &results);
};

constexpr int64_t kEveryOpset = std::numeric_limits<int64_t>::max();

constexpr std::array<Adapter, 21> kAdapters = {{
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
    {"BatchNormalization", 9, batchNormSpatial},
    {"Dropout", 12, dropRatioAttribute},
    {"Max", kEveryOpset, variadicToBinary},
    {"Min", kEveryOpset, variadicToBinary},
    {"Sum", kEveryOpset, variadicToBinary},
}};

} // namespace

bool adaptsAway(std::string_view op, int64_t opset) {
  return std::any_of(kAdapters.begin(), kAdapters.end(), [&](const Adapter &adapter) {
    return adapter.op == op && opset < adapter.untilOpset;
  });
}

Expected<std::vector<Value *>> adaptToLatestOpset(Graph &graph, Node &node, int64_t opset) {
  std::vector<Value *> results = node.outputs();
  for (const Adapter &adapter : kAdapters) {
    if (adapter.op == node.op() && opset < adapter.untilOpset) {
      CUVIL_TRY(adapter.apply(graph, node, results)); // may erase the node
      break;
    }
  }
  return results;
}

} // namespace cuvil
