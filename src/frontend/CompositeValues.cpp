#include "CompositeValues.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace cuvil {
namespace {

using Handler = Status (*)(const onnx::NodeProto &, CompositeScope &);

// A node's input `i`, or "" when it is omitted.
const std::string &inputName(const onnx::NodeProto &node, int i) {
  static const std::string none;
  return i < node.input_size() ? node.input(i) : none;
}

int64_t intAttribute(const onnx::NodeProto &node, std::string_view name, int64_t fallback) {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return attr.i();
  return fallback;
}

// A constant input's integers (or a graph input's that --value fixed), or an
// error naming what it is for.
Expected<std::vector<int64_t>> constantInts(const onnx::NodeProto &node, int i, const char *what,
                                            CompositeScope &scope) {
  Expected<Value *> value = scope.tensor(inputName(node, i));
  CUVIL_TRY(value.status());
  if ((*value)->isConstant())
    return (*value)->constant().toInt64s();
  if (const std::vector<Dim> *dims = (*value)->dimValues(); dims && isStatic(*dims))
    return staticDims(*dims);
  std::string fix =
      (*value)->isGraphInput()
          ? fmt::format(": fix the values of graph input '{}' with --value {}=V,V,...",
                        (*value)->name(), (*value)->name())
          : "";
  return Status::error(fmt::format("{} must be known at compile time (sequences have lengths "
                                   "known at compile time){}",
                                   what, fix));
}

Expected<CompositeValue> sequenceInput(const onnx::NodeProto &node, int i, CompositeScope &scope) {
  Expected<CompositeValue> value = scope.composite(inputName(node, i));
  CUVIL_TRY(value.status());
  if (!value->sequence || value->optional)
    return Status::error(fmt::format("input '{}' is not a sequence", inputName(node, i)));
  return value;
}

// A position in [-n, n) (or [-n, n] where `end` may be taken) as an index.
Expected<size_t> position(const onnx::NodeProto &node, int i, size_t n, bool end,
                          CompositeScope &scope) {
  Expected<std::vector<int64_t>> value = constantInts(node, i, "the position", scope);
  CUVIL_TRY(value.status());
  if (value->size() != 1)
    return Status::error("the position must be one integer");
  int64_t p = (*value)[0], count = int64_t(n);
  if (p < -count || p > count || (p == count && !end))
    return Status::error(
        fmt::format("position {} is out of range for a sequence of {} elements", p, n));
  return size_t(p < 0 ? p + count : p);
}

Status sequenceEmpty(const onnx::NodeProto &node, CompositeScope &scope) {
  std::optional<DType> dtype = dtypeFromOnnxCode(int(intAttribute(node, "dtype", 1)));
  if (!dtype)
    return Status::error("dtype is not a supported element type");
  scope.bind(node.output(0), CompositeValue::ofSequence({}, *dtype));
  return Status::success();
}

Status sequenceConstruct(const onnx::NodeProto &node, CompositeScope &scope) {
  std::vector<Value *> elements;
  for (const std::string &name : node.input()) {
    Expected<Value *> element = scope.tensor(name);
    CUVIL_TRY(element.status());
    elements.push_back(*element);
  }
  if (elements.empty())
    return Status::error("SequenceConstruct takes at least one tensor");
  DType dtype = elements[0]->hasType() ? elements[0]->type().dtype : DType::F32;
  scope.bind(node.output(0), CompositeValue::ofSequence(std::move(elements), dtype));
  return Status::success();
}

Status sequenceInsert(const onnx::NodeProto &node, CompositeScope &scope) {
  Expected<CompositeValue> sequence = sequenceInput(node, 0, scope);
  CUVIL_TRY(sequence.status());
  Expected<Value *> tensor = scope.tensor(inputName(node, 1));
  CUVIL_TRY(tensor.status());
  size_t at = sequence->tensors.size();
  if (!inputName(node, 2).empty()) {
    Expected<size_t> p = position(node, 2, sequence->tensors.size(), /*end=*/true, scope);
    CUVIL_TRY(p.status());
    at = *p;
  }
  sequence->tensors.insert(sequence->tensors.begin() + std::ptrdiff_t(at), *tensor);
  scope.bind(node.output(0), *sequence);
  return Status::success();
}

Status sequenceErase(const onnx::NodeProto &node, CompositeScope &scope) {
  Expected<CompositeValue> sequence = sequenceInput(node, 0, scope);
  CUVIL_TRY(sequence.status());
  if (sequence->tensors.empty())
    return Status::error("erases from an empty sequence");
  size_t at = sequence->tensors.size() - 1;
  if (!inputName(node, 1).empty()) {
    Expected<size_t> p = position(node, 1, sequence->tensors.size(), /*end=*/false, scope);
    CUVIL_TRY(p.status());
    at = *p;
  }
  sequence->tensors.erase(sequence->tensors.begin() + std::ptrdiff_t(at));
  scope.bind(node.output(0), *sequence);
  return Status::success();
}

Status sequenceAt(const onnx::NodeProto &node, CompositeScope &scope) {
  Expected<CompositeValue> sequence = sequenceInput(node, 0, scope);
  CUVIL_TRY(sequence.status());
  Expected<size_t> p = position(node, 1, sequence->tensors.size(), /*end=*/false, scope);
  CUVIL_TRY(p.status());
  scope.bind(node.output(0), sequence->tensors[*p]);
  return Status::success();
}

Status sequenceLength(const onnx::NodeProto &node, CompositeScope &scope) {
  Expected<CompositeValue> sequence = sequenceInput(node, 0, scope);
  CUVIL_TRY(sequence.status());
  int64_t length = int64_t(sequence->tensors.size());
  scope.bind(node.output(0),
             scope.graph().addConstant(
                 node.output(0), Tensor::fromInt64s(std::span<const int64_t>(&length, 1), {})));
  return Status::success();
}

// A node of `op` on `inputs` with integer attributes, in the current graph.
Node *addNode(CompositeScope &scope, const std::string &op, const std::vector<Value *> &inputs,
              const std::vector<std::string> &outputs,
              const std::vector<std::pair<std::string, int64_t>> &attributes,
              const onnx::NodeProto &from) {
  Node *node = scope.graph().addNode(op, inputs, outputs);
  node->setName(from.name());
  for (const auto &[name, value] : attributes)
    node->setAttr(name, value);
  return node;
}

Status concatFromSequence(const onnx::NodeProto &node, CompositeScope &scope) {
  Expected<CompositeValue> sequence = sequenceInput(node, 0, scope);
  CUVIL_TRY(sequence.status());
  if (sequence->tensors.empty())
    return Status::error("concatenates an empty sequence");
  int64_t axis = intAttribute(node, "axis", 0);
  std::vector<Value *> parts = sequence->tensors;
  if (intAttribute(node, "new_axis", 0) != 0) {
    // Each element gets the new axis first; a negative axis counts from the
    // end of the result, one rank more than the elements.
    Value *axes = scope.graph().addConstant(
        node.output(0) + ".axis", Tensor::fromInt64s(std::span<const int64_t>(&axis, 1), {1}));
    for (Value *&part : parts)
      part = addNode(scope, "Unsqueeze", {part, axes}, {node.output(0) + ".part"}, {}, node)
                 ->output(0);
  }
  scope.bind(node.output(0),
             addNode(scope, "Concat", parts, {node.output(0)}, {{"axis", axis}}, node)->output(0));
  return Status::success();
}

Status splitToSequence(const onnx::NodeProto &node, CompositeScope &scope) {
  Expected<Value *> input = scope.tensor(inputName(node, 0));
  CUVIL_TRY(input.status());
  int64_t axis = intAttribute(node, "axis", 0);
  std::vector<int64_t> sizes;
  std::optional<int64_t> extent;
  // Only the split axis must be known: the other dims may stay symbolic.
  if ((*input)->hasType()) {
    const Shape &shape = (*input)->type().shape;
    int64_t rank = int64_t(shape.size());
    if (axis < -rank || axis >= rank)
      return Status::error(fmt::format("axis {} is outside the input's rank {}", axis, rank));
    const Dim &dim = shape[size_t(axis < 0 ? axis + rank : axis)];
    if (dim.isConstant())
      extent = dim.constant();
  } else {
    extent = scope.inferredExtent(inputName(node, 0), axis);
  }
  // Sizes as given, chunks of a scalar size (the last one shorter), or
  // one element per index along the axis, which keepdims 0 squeezes.
  bool squeeze = false;
  if (inputName(node, 1).empty()) {
    if (!extent)
      return Status::error("splitting without sizes needs the input's extent along the axis at "
                           "compile time (the number of elements depends on it)");
    sizes.assign(size_t(*extent), 1);
    squeeze = intAttribute(node, "keepdims", 1) == 0;
  } else {
    Expected<std::vector<int64_t>> split = constantInts(node, 1, "the split", scope);
    CUVIL_TRY(split.status());
    bool scalar = (*scope.tensor(inputName(node, 1)))->type().shape.empty();
    if (!scalar) {
      sizes = *split;
    } else if (!extent) {
      return Status::error("a scalar split needs the input's extent along the axis at compile "
                           "time");
    } else if ((*split)[0] <= 0) {
      return Status::error("the split must be positive");
    } else {
      for (int64_t done = 0; done < *extent; done += (*split)[0])
        sizes.push_back(std::min((*split)[0], *extent - done));
    }
  }
  if (sizes.empty())
    return Status::error("splits into no elements");
  std::vector<std::string> names;
  for (size_t k = 0; k < sizes.size(); ++k)
    names.push_back(fmt::format("{}.{}", node.output(0), k));
  Value *split = scope.graph().addConstant(node.output(0) + ".split",
                                           Tensor::fromInt64s(sizes, {int64_t(sizes.size())}));
  Node *splitNode = addNode(scope, "Split", {*input, split}, names, {{"axis", axis}}, node);
  std::vector<Value *> elements = splitNode->outputs();
  if (squeeze) {
    Value *axes = scope.graph().addConstant(
        node.output(0) + ".axis", Tensor::fromInt64s(std::span<const int64_t>(&axis, 1), {1}));
    for (Value *&element : elements)
      element =
          addNode(scope, "Squeeze", {element, axes}, {element->name() + ".squeezed"}, {}, node)
              ->output(0);
  }
  DType dtype = (*input)->hasType() ? (*input)->type().dtype : DType::F32;
  scope.bind(node.output(0), CompositeValue::ofSequence(std::move(elements), dtype));
  return Status::success();
}

// SequenceMap: the body once per element, each sequence input giving its
// element and every other input itself; each output a sequence of the
// body's results.
Status sequenceMap(const onnx::NodeProto &node, CompositeScope &scope) {
  const onnx::GraphProto *body = nullptr;
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == "body" && attr.type() == onnx::AttributeProto::GRAPH)
      body = &attr.g();
  if (!body)
    return Status::error("the graph attribute 'body' is missing");
  Expected<CompositeValue> first = sequenceInput(node, 0, scope);
  CUVIL_TRY(first.status());
  size_t length = first->tensors.size();
  std::vector<std::optional<CompositeValue>> sequences;
  for (int i = 0; i < node.input_size(); ++i) {
    if (!scope.isComposite(node.input(i))) {
      sequences.push_back(std::nullopt);
      continue;
    }
    Expected<CompositeValue> sequence = sequenceInput(node, i, scope);
    CUVIL_TRY(sequence.status());
    if (sequence->tensors.size() != length)
      return Status::error(fmt::format("sequence '{}' has {} elements, '{}' {}", node.input(i),
                                       sequence->tensors.size(), node.input(0), length));
    sequences.push_back(*sequence);
  }
  std::vector<std::vector<Value *>> outputs(size_t(node.output_size()));
  for (size_t k = 0; k < length; ++k) {
    std::vector<BoundValue> inputs;
    for (int i = 0; i < node.input_size(); ++i) {
      if (sequences[size_t(i)]) {
        inputs.push_back(sequences[size_t(i)]->tensors[k]);
        continue;
      }
      Expected<Value *> tensor = scope.tensor(node.input(i));
      CUVIL_TRY(tensor.status());
      inputs.push_back(*tensor);
    }
    Expected<std::vector<BoundValue>> results = scope.inlineBody(*body, inputs);
    CUVIL_TRY(results.status().withContext(fmt::format("element {}", k)));
    if (results->size() != outputs.size())
      return Status::error(fmt::format("the body returns {} values for {} outputs", results->size(),
                                       outputs.size()));
    for (size_t o = 0; o < outputs.size(); ++o) {
      if (!std::holds_alternative<Value *>((*results)[o]))
        return Status::error("the body returns a sequence or optional; SequenceMap maps tensors");
      outputs[o].push_back(std::get<Value *>((*results)[o]));
    }
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    DType dtype = outputs[o].empty() || !outputs[o][0]->hasType() ? first->dtype
                                                                  : outputs[o][0]->type().dtype;
    scope.bind(node.output(int(o)), CompositeValue::ofSequence(outputs[o], dtype));
  }
  return Status::success();
}

Status optional(const onnx::NodeProto &node, CompositeScope &scope) {
  CompositeValue value;
  if (!inputName(node, 0).empty()) {
    if (scope.isComposite(node.input(0))) {
      Expected<CompositeValue> inner = scope.composite(node.input(0));
      CUVIL_TRY(inner.status());
      if (inner->optional)
        return Status::error("an optional of an optional");
      value = *inner;
    } else {
      Expected<Value *> tensor = scope.tensor(node.input(0));
      CUVIL_TRY(tensor.status());
      value.tensors = {*tensor};
    }
  } else {
    value.present = false;
  }
  value.optional = true;
  scope.bind(node.output(0), value);
  return Status::success();
}

Status optionalHasElement(const onnx::NodeProto &node, CompositeScope &scope) {
  bool present = false;
  if (!inputName(node, 0).empty()) {
    Expected<CompositeValue> value = scope.composite(node.input(0));
    CUVIL_TRY(value.status());
    present = value->present;
  }
  Tensor flag(TensorType{DType::Bool, {}});
  flag.setInt(0, present ? 1 : 0);
  scope.bind(node.output(0), scope.graph().addConstant(node.output(0), std::move(flag)));
  return Status::success();
}

Status optionalGetElement(const onnx::NodeProto &node, CompositeScope &scope) {
  if (!scope.isComposite(inputName(node, 0))) { // a tensor: itself (opset 18)
    Expected<Value *> tensor = scope.tensor(inputName(node, 0));
    CUVIL_TRY(tensor.status());
    scope.bind(node.output(0), *tensor);
    return Status::success();
  }
  Expected<CompositeValue> value = scope.composite(node.input(0));
  CUVIL_TRY(value.status());
  if (!value->present)
    return Status::error(fmt::format("optional '{}' is empty", node.input(0)));
  if (value->sequence) {
    value->optional = false;
    scope.bind(node.output(0), *value);
  } else {
    scope.bind(node.output(0), value->tensors[0]);
  }
  return Status::success();
}

Status identity(const onnx::NodeProto &node, CompositeScope &scope) {
  Expected<CompositeValue> value = scope.composite(inputName(node, 0));
  CUVIL_TRY(value.status());
  scope.bind(node.output(0), *value);
  return Status::success();
}

// Whether `value` is true on every run: a constant true, an input --value
// fixed at 1, or an Identity of one.
bool isKnownTrue(const Value *value) {
  while (!value->isConstant() && value->producer() && value->producer()->op() == "Identity")
    value = value->producer()->input(0);
  if (const std::vector<Dim> *dims = value->dimValues())
    return dims->size() == 1 && (*dims)[0].isConstant() && (*dims)[0].constant() != 0;
  return value->isConstant() && value->constant().numElements() == 1 &&
         value->constant().getInt(0) != 0;
}

// A Loop carrying a sequence or optional, unrolled: its body once per
// iteration, the iteration number a constant, the carried values threaded
// through; scan outputs stack the iterations' tensors on a new first axis.
// The trip count must be known and the condition true throughout.
Status unrollLoop(const onnx::NodeProto &node, CompositeScope &scope) {
  const onnx::GraphProto *body = nullptr;
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == "body" && attr.type() == onnx::AttributeProto::GRAPH)
      body = &attr.g();
  if (!body)
    return Status::error("the graph attribute 'body' is missing");
  if (inputName(node, 0).empty())
    return Status::error("a Loop carrying a sequence needs a trip count known at compile time");
  Expected<Value *> m = scope.tensor(inputName(node, 0));
  CUVIL_TRY(m.status());
  std::optional<int64_t> trips;
  if ((*m)->isConstant())
    trips = (*m)->constant().getInt(0);
  else if (const std::vector<Dim> *dims = (*m)->dimValues(); dims && isStatic(*dims))
    trips = (*dims)[0].constant();
  if (!trips)
    return Status::error(fmt::format(
        "a Loop carrying a sequence is unrolled: its trip count must be known at compile time{}",
        (*m)->isGraphInput() ? fmt::format(" (fix the values of graph input '{}' with --value "
                                           "{}=V)",
                                           (*m)->name(), (*m)->name())
                             : ""));
  if (!inputName(node, 1).empty()) {
    Expected<Value *> cond = scope.tensor(inputName(node, 1));
    CUVIL_TRY(cond.status());
    if (!isKnownTrue(*cond))
      return Status::error(fmt::format(
          "a Loop carrying a sequence is unrolled: its condition must be true at compile time{}",
          (*cond)->isGraphInput() ? fmt::format(" (fix the values of graph input '{}' with "
                                                "--value {}=1)",
                                                (*cond)->name(), (*cond)->name())
                                  : ""));
  }
  std::vector<BoundValue> carried;
  for (int i = 2; i < node.input_size(); ++i) {
    Expected<BoundValue> value = scope.value(node.input(i));
    CUVIL_TRY(value.status());
    carried.push_back(*value);
  }
  size_t scans = size_t(body->output_size()) - 1 - carried.size();
  if (body->output_size() < int(1 + carried.size()) ||
      size_t(node.output_size()) != carried.size() + scans)
    return Status::error("the body's outputs do not match the Loop's carried values and results");
  Tensor yes(TensorType{DType::Bool, {}});
  yes.setInt(0, 1);
  Value *always = scope.graph().addConstant(node.output(0) + ".cond", std::move(yes));
  std::vector<std::vector<Value *>> rows(scans);
  for (int64_t k = 0; k < *trips; ++k) {
    std::vector<BoundValue> inputs = {
        scope.graph().addConstant(fmt::format("{}.iteration{}", node.output(0), k),
                                  Tensor::fromInt64s(std::span<const int64_t>(&k, 1), {})),
        always};
    inputs.insert(inputs.end(), carried.begin(), carried.end());
    Expected<std::vector<BoundValue>> results = scope.inlineBody(*body, inputs);
    CUVIL_TRY(results.status().withContext(fmt::format("iteration {}", k)));
    const BoundValue &cond = (*results)[0];
    if (!std::holds_alternative<Value *>(cond) || !isKnownTrue(std::get<Value *>(cond)))
      return Status::error("a Loop carrying a sequence is unrolled: its body's condition must be "
                           "true at compile time");
    for (size_t c = 0; c < carried.size(); ++c)
      carried[c] = (*results)[1 + c];
    for (size_t s = 0; s < scans; ++s) {
      const BoundValue &row = (*results)[1 + carried.size() + s];
      if (!std::holds_alternative<Value *>(row))
        return Status::error("scan outputs must be tensors");
      rows[s].push_back(std::get<Value *>(row));
    }
  }
  for (size_t c = 0; c < carried.size(); ++c) {
    const std::string &name = node.output(int(c));
    if (name.empty())
      continue;
    if (std::holds_alternative<Value *>(carried[c]))
      scope.bind(name, std::get<Value *>(carried[c]));
    else
      scope.bind(name, std::get<CompositeValue>(carried[c]));
  }
  for (size_t s = 0; s < scans; ++s) {
    const std::string &name = node.output(int(carried.size() + s));
    if (name.empty())
      continue;
    if (rows[s].empty())
      return Status::error("a scan output of an unrolled Loop that runs no iteration");
    int64_t zero = 0;
    Value *axes = scope.graph().addConstant(
        name + ".axis", Tensor::fromInt64s(std::span<const int64_t>(&zero, 1), {1}));
    std::vector<Value *> parts;
    for (Value *row : rows[s])
      parts.push_back(
          addNode(scope, "Unsqueeze", {row, axes}, {name + ".row"}, {}, node)->output(0));
    scope.bind(name, addNode(scope, "Concat", parts, {name}, {{"axis", 0}}, node)->output(0));
  }
  return Status::success();
}

const std::map<std::string_view, Handler> &handlers() {
  static const std::map<std::string_view, Handler> table = {
      {"SequenceEmpty", sequenceEmpty},
      {"SequenceConstruct", sequenceConstruct},
      {"SequenceInsert", sequenceInsert},
      {"SequenceErase", sequenceErase},
      {"SequenceAt", sequenceAt},
      {"SequenceLength", sequenceLength},
      {"ConcatFromSequence", concatFromSequence},
      {"SplitToSequence", splitToSequence},
      {"SequenceMap", sequenceMap},
      {"Optional", optional},
      {"OptionalHasElement", optionalHasElement},
      {"OptionalGetElement", optionalGetElement},
  };
  return table;
}

} // namespace

bool isCompositeOp(std::string_view op) { return handlers().count(op) != 0; }

Expected<BoundValue> CompositeScope::value(const std::string &name) {
  if (isComposite(name)) {
    Expected<CompositeValue> value = composite(name);
    CUVIL_TRY(value.status());
    return BoundValue(*value);
  }
  Expected<Value *> value = tensor(name);
  CUVIL_TRY(value.status());
  return BoundValue(*value);
}

Status importCompositeOp(const onnx::NodeProto &node, CompositeScope &scope) {
  if (node.output_size() == 0 || node.output(0).empty())
    return Status::error("the node has no result");
  if (node.op_type() == "Identity")
    return identity(node, scope);
  if (node.op_type() == "Loop")
    return unrollLoop(node, scope);
  return handlers().at(node.op_type())(node, scope);
}

} // namespace cuvil
