#include "cuvil/frontend/OnnxImporter.h"

#include "CompositeValues.h"
#include "FunctionInliner.h"
#include "InferredExtents.h"
#include "IsolatedShapeInference.h"
#include "MicrosoftQuantizedOps.h"
#include "ModelProtoLoader.h"
#include "OpsetAdapters.h"
#include "OptimizerOps.h"
#include "TensorProtoReader.h"
#include "cuvil/ir/OpSchema.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <map>
#include <onnx/onnx_pb.h>
#include <tuple>
#include <unistd.h>

namespace cuvil {
namespace {

// Opset 24 changed no op's meaning for the types and inputs cuvil takes
// (it added float8e8m0 to type lists, Cast's round_mode for it, Attention's
// nonpad_kv_seqlen, and the new ops Swish and TensorScatter).
constexpr int64_t kMinOpset = 1, kMaxOpset = 24;

bool isDefaultDomain(const std::string &domain) { return domain.empty() || domain == "ai.onnx"; }

std::string nodeLabel(const onnx::NodeProto &node, int index) {
  std::string name = !node.name().empty()      ? node.name()
                     : node.output_size() != 0 ? node.output(0)
                                               : fmt::format("#{}", index);
  std::string op =
      isDefaultDomain(node.domain()) ? node.op_type() : node.domain() + "." + node.op_type();
  return fmt::format("node '{}' ({})", name, op);
}

// The names one graph of the model defines: the model's graph, or the
// subgraph of a control-flow node (an If branch, a Loop or Scan body),
// whose names from enclosing graphs become captures of that node.
struct Scope {
  Graph *graph;
  std::map<std::string, Value *> values;
  Scope *parent = nullptr;
  Node *owner = nullptr; // the node this scope is a region of; null: a body inlined in `graph`
  std::map<std::string, CompositeValue> composites; // sequences and optionals
};

class Importer final : public CompositeScope {
public:
  Importer(onnx::ModelProto &model, std::string modelDir, const ImportOptions &options)
      : model_(model), modelDir_(std::move(modelDir)), options_(options) {}

  Expected<std::unique_ptr<Graph>> run(const std::string &name) {
    CUVIL_TRY(readOpset());
    Expected<std::vector<int64_t>> opsets = inlineFunctions(
        model_, opset_, [&](const onnx::NodeProto &node) { return isNative(node); });
    CUVIL_TRY(opsets.status());
    nodeOpsets_ = opsets.take();
    CUVIL_TRY(checkNodes());
    adaptContext_.opset = opset_;
    if (opset_ < 7)
      adaptContext_.ranks = legacyRanks();
    graph_ = std::make_unique<Graph>(name);
    top_.graph = graph_.get();
    const onnx::GraphProto &graph = model_.graph();
    for (const onnx::TensorProto &initializer : graph.initializer()) {
      if (top_.values.count(initializer.name()))
        return Status::error(fmt::format("initializer '{}' is defined twice", initializer.name()));
      Expected<Value *> value = constantValue(*graph_, initializer.name(), initializer);
      CUVIL_TRY(value.status());
      bind(initializer.name(), *value);
    }
    CUVIL_TRY(importInputs());
    for (int index = 0; index < graph.node_size(); ++index) {
      const onnx::NodeProto &node = graph.node(index);
      adaptContext_.opset = nodeOpsets_[size_t(index)];
      CUVIL_TRY(importNode(node).withContext(nodeLabel(node, index)));
    }
    // Every node is in its newest opset's form now: give it the attribute
    // defaults its schema declares, so that nothing downstream repeats them.
    fillDefaults(*graph_);
    std::vector<std::string> missing;
    for (const onnx::ValueInfoProto &output : graph.output()) {
      if (auto composite = top_.composites.find(output.name());
          composite != top_.composites.end()) {
        addCompositeOutput(output.name(), composite->second);
        continue;
      }
      auto it = top_.values.find(output.name());
      if (it == top_.values.end()) {
        missing.push_back("'" + output.name() + "'");
        continue;
      }
      graph_->addOutput(it->second, output.name());
    }
    if (!missing.empty())
      return Status::error(fmt::format("graph output{} {} {} never produced",
                                       missing.size() > 1 ? "s" : "", fmt::join(missing, ", "),
                                       missing.size() > 1 ? "are" : "is"));
    if (graph.output_size() == 0)
      return Status::error("the graph has no outputs");
    for (const auto *infos : {&graph.value_info(), &graph.output()})
      for (const onnx::ValueInfoProto &info : *infos)
        if (auto it = top_.values.find(info.name());
            it != top_.values.end() && it->second->producer() && !it->second->isGraphInput())
          it->second->setDeclaredType(declaredType(info));
    return std::move(graph_);
  }

private:
  static void fillDefaults(Graph &graph) {
    for (const auto &node : graph.nodes()) {
      fillDefaultAttributes(*node);
      for (size_t r = 0; r < node->numRegions(); ++r)
        fillDefaults(node->region(r));
    }
  }

  Status readOpset() {
    bool found = false, training = false;
    for (const auto &import : model_.opset_import()) {
      if (isDefaultDomain(import.domain())) {
        opset_ = import.version();
        found = true;
      }
      training |= import.domain() == kTrainingDomain;
    }
    // A model of optimiser updates alone: the IR nodes they become are the
    // newest opset's.
    if (!found && training) {
      opset_ = kMaxOpset;
      found = true;
    }
    if (!found)
      return Status::error("the model imports no version of the default ONNX domain");
    if (opset_ < kMinOpset || opset_ > kMaxOpset)
      return Status::error(fmt::format("opset {} is not supported (supported: {} to {})", opset_,
                                       kMinOpset, kMaxOpset));
    return Status::success();
  }

  // What a value_info entry declares, if it declares a tensor type.
  static std::optional<DeclaredType> declaredType(const onnx::ValueInfoProto &info) {
    if (!info.type().has_tensor_type())
      return std::nullopt;
    const auto &type = info.type().tensor_type();
    std::optional<DType> dtype = dtypeFromOnnxCode(type.elem_type());
    if (!dtype)
      return std::nullopt;
    DeclaredType declared{*dtype, std::nullopt};
    if (type.has_shape()) {
      declared.dims.emplace();
      for (const auto &dim : type.shape().dim())
        declared.dims->push_back(dim.has_dim_value() && dim.dim_value() >= 0
                                     ? std::optional<int64_t>(dim.dim_value())
                                     : std::nullopt);
    }
    return declared;
  }

  // Whether the IR's op holds regions (If, Loop, Scan), which its graph
  // attributes become.
  static bool takesRegions(const onnx::NodeProto &node) {
    const OpSchema *schema = OpRegistry::instance().find(node.op_type());
    return isDefaultDomain(node.domain()) && schema && schema->prepareRegions;
  }

  // The problems of `graph`'s nodes and of the subgraphs in them, each
  // labelled with the nodes enclosing it.
  void collectNodeProblems(const onnx::GraphProto &graph, const std::string &where,
                           std::vector<std::string> &problems) const {
    int index = 0;
    for (const onnx::NodeProto &node : graph.node()) {
      std::string label = where + nodeLabel(node, index++);
      if (!isDefaultDomain(node.domain()) && !isOptimizerOp(node) && !isMicrosoftQuantizedOp(node))
        problems.push_back(fmt::format("{}: domain '{}' is not supported", label, node.domain()));
      else if (!isNative(node))
        problems.push_back(fmt::format("{}: operator not supported", label));
      for (const onnx::AttributeProto &attr : node.attribute()) {
        if (attr.type() == onnx::AttributeProto::GRAPH &&
            (takesRegions(node) || node.op_type() == "SequenceMap"))
          collectNodeProblems(attr.g(), fmt::format("{}, {}: ", label, attr.name()), problems);
        else if (attr.type() == onnx::AttributeProto::GRAPH ||
                 attr.type() == onnx::AttributeProto::GRAPHS)
          problems.push_back(
              fmt::format("{}: subgraph attribute '{}' is not supported", label, attr.name()));
        else if (attr.type() == onnx::AttributeProto::TYPE_PROTO && isCompositeOp(node.op_type()))
          continue; // Optional's type: the importer reads what it needs of it
        else if (std::optional<std::string> problem = attributeKindProblem(node, attr))
          problems.push_back(fmt::format("{}: {}", label, *problem));
      }
    }
  }

  // Lists every node that cannot be compiled, so the user sees all at once.
  Status checkNodes() {
    std::vector<std::string> problems;
    collectNodeProblems(model_.graph(), "", problems);
    if (problems.empty())
      return Status::success();
    std::string message =
        fmt::format("cannot compile {} node{}:", problems.size(), problems.size() == 1 ? "" : "s");
    for (const std::string &problem : problems)
      message += "\n  " + problem;
    return Status::error(message);
  }

  // Why an attribute of the wrong kind (strides as floats, an axis as a
  // string) cannot be read, or nullopt: checked against the op's schema,
  // or for the attributes that only older opsets have (the adapters read
  // them) against their ONNX kinds.
  static std::optional<std::string> attributeKindProblem(const onnx::NodeProto &node,
                                                         const onnx::AttributeProto &attr) {
    static const std::map<onnx::AttributeProto::AttributeType, AttrKind> kKinds = {
        {onnx::AttributeProto::INT, AttrKind::Int},
        {onnx::AttributeProto::FLOAT, AttrKind::Float},
        {onnx::AttributeProto::STRING, AttrKind::String},
        {onnx::AttributeProto::INTS, AttrKind::Ints},
        {onnx::AttributeProto::FLOATS, AttrKind::Floats},
        {onnx::AttributeProto::STRINGS, AttrKind::Strings},
        {onnx::AttributeProto::TENSOR, AttrKind::Tensor}};
    // Attributes later opsets made inputs or dropped, and those the
    // adapters turn into inputs: (op, name, kind). An adapter reads each
    // before any schema check, so its kind must be known here.
    static const std::vector<std::tuple<std::string_view, std::string_view, AttrKind>> kLegacy = {
        {"", "axes", AttrKind::Ints},
        {"Split", "split", AttrKind::Ints},
        {"Slice", "starts", AttrKind::Ints},
        {"Slice", "ends", AttrKind::Ints},
        {"Clip", "min", AttrKind::Float},
        {"Clip", "max", AttrKind::Float},
        {"Pad", "pads", AttrKind::Ints},
        {"Pad", "value", AttrKind::Float},
        {"Dropout", "ratio", AttrKind::Float},
        {"Reshape", "shape", AttrKind::Ints},
        {"TopK", "k", AttrKind::Int},
        {"", "broadcast", AttrKind::Int},
        {"", "axis", AttrKind::Int},
        {"", "spatial", AttrKind::Int},
        {"", "is_test", AttrKind::Int},
        {"", "consumed_inputs", AttrKind::Ints},
        {"", "keepdims", AttrKind::Int},
        {"", "noop_with_empty_axes", AttrKind::Int},
        {"", "output_sequence", AttrKind::Int},
        {"Upsample", "mode", AttrKind::String},
        {"Upsample", "scales", AttrKind::Floats},
        {"Upsample", "height_scale", AttrKind::Float},
        {"Upsample", "width_scale", AttrKind::Float},
        {"Scan", "directions", AttrKind::Ints},
        {"TfIdfVectorizer", "pool_int64s", AttrKind::Ints},
        {"TfIdfVectorizer", "ngram_counts", AttrKind::Ints},
        {"TfIdfVectorizer", "ngram_indexes", AttrKind::Ints},
        {"TfIdfVectorizer", "weights", AttrKind::Floats}};
    std::optional<AttrKind> expected;
    if (const OpSchema *schema = OpRegistry::instance().find(node.op_type()))
      if (const AttrSpec *spec = schema->findAttribute(attr.name()))
        expected = spec->kind;
    for (const auto &[op, name, kind] : kLegacy)
      if (!expected && name == attr.name() && (op.empty() || op == node.op_type()))
        expected = kind;
    auto given = kKinds.find(attr.type());
    if (given == kKinds.end())
      return fmt::format("attribute '{}' has kind {}, which no supported op takes", attr.name(),
                         onnx::AttributeProto::AttributeType_Name(attr.type()));
    if (!expected || *expected == given->second)
      return std::nullopt;
    return fmt::format("attribute '{}' must be {}, but the model gives {}", attr.name(),
                       attrKindName(*expected), attrKindName(given->second));
  }

  // Whether the IR has the node's op (or an adapter rewrites it into ops
  // the IR has).
  bool isNative(const onnx::NodeProto &node) const {
    if (isOptimizerOp(node) || isMicrosoftQuantizedOp(node))
      return true;
    return isDefaultDomain(node.domain()) &&
           (node.op_type() == "Constant" || OpRegistry::instance().find(node.op_type()) ||
            isCompositeOp(node.op_type()) || adaptsAway(node.op_type(), opset_));
  }

  // The ranks ONNX's own shape inference finds (on a copy of the model),
  // for the legacy broadcasting of opsets before 7; none if it fails.
  std::map<std::string, int64_t> legacyRanks() const {
    std::optional<onnx::GraphProto> typed = inferValueTypes(model_);
    if (!typed)
      return {};
    std::map<std::string, int64_t> ranks;
    auto add = [&](const onnx::ValueInfoProto &info) {
      if (info.type().has_tensor_type() && info.type().tensor_type().has_shape())
        ranks[info.name()] = info.type().tensor_type().shape().dim_size();
    };
    for (const auto *infos : {&typed->input(), &typed->value_info(), &typed->output()})
      for (const auto &info : *infos)
        add(info);
    for (const auto &initializer : model_.graph().initializer())
      ranks[initializer.name()] = initializer.dims_size();
    return ranks;
  }

  Status importInputs() {
    // The symbols of the ranged inputs first: other inputs refer to them by
    // their dim_param names.
    for (const onnx::ValueInfoProto &input : model_.graph().input()) {
      auto range = options_.inputRanges.find(input.name());
      if (range != options_.inputRanges.end() && !top_.values.count(input.name()))
        CUVIL_TRY(defineSymbols(input, range->second));
    }
    for (const onnx::ValueInfoProto &input : model_.graph().input()) {
      if (top_.values.count(input.name())) { // an initializer listed as input (IR < 4)
        if (top_.values.at(input.name())->isGraphInput())
          return Status::error(fmt::format("input '{}' is listed twice", input.name()));
        continue;
      }
      if (input.type().has_sequence_type() || input.type().has_optional_type()) {
        CUVIL_TRY(importCompositeInput(input));
        continue;
      }
      if (!input.type().has_tensor_type())
        return Status::error(fmt::format("input '{}' is not a tensor", input.name()));
      const auto &tensorType = input.type().tensor_type();
      std::optional<DType> dtype = dtypeFromOnnxCode(tensorType.elem_type());
      if (!dtype)
        return Status::error(fmt::format("input '{}' has unsupported element type {}", input.name(),
                                         tensorType.elem_type()));
      Expected<Shape> shape = inputShape(input, tensorType);
      CUVIL_TRY(shape.status());
      CUVIL_TRY(checkInputSize(input.name(), *dtype, *shape));
      Value *value = graph_->addInput(input.name(), TensorType{*dtype, *shape});
      bind(input.name(), value);
      if (auto values = options_.inputValues.find(input.name());
          values != options_.inputValues.end())
        CUVIL_TRY(defineValues(*value, values->second));
    }
    return checkOptionNames();
  }

  // A sequence input is one tensor input per element, NAME.K, of the shapes
  // --sequence gives; an optional one its tensor or sequence, or nothing
  // with --absent.
  Status importCompositeInput(const onnx::ValueInfoProto &input) {
    const std::string &name = input.name();
    const onnx::TypeProto *type = &input.type();
    CompositeValue value;
    if (type->has_optional_type()) {
      value.optional = true;
      type = &type->optional_type().elem_type();
      if (options_.absentInputs.count(name)) {
        value.present = false;
        top_.composites[name] = value;
        return Status::success();
      }
    }
    value.sequence = type->has_sequence_type();
    if (value.sequence)
      type = &type->sequence_type().elem_type();
    if (!type->has_tensor_type())
      return Status::error(
          fmt::format("input '{}' holds neither tensors nor a sequence of them", name));
    std::optional<DType> dtype = dtypeFromOnnxCode(type->tensor_type().elem_type());
    if (!dtype)
      return Status::error(fmt::format("input '{}' has unsupported element type {}", name,
                                       type->tensor_type().elem_type()));
    value.dtype = *dtype;
    if (!value.sequence) { // an optional tensor, present
      onnx::ValueInfoProto tensor = input;
      *tensor.mutable_type() = *type;
      Expected<Shape> shape = inputShape(tensor, type->tensor_type());
      CUVIL_TRY(shape.status());
      value.tensors = {graph_->addInput(name, TensorType{*dtype, *shape})};
      top_.composites[name] = value;
      return Status::success();
    }
    auto shapes = options_.inputSequences.find(name);
    if (shapes == options_.inputSequences.end())
      return Status::error(fmt::format(
          "input '{}' is a sequence: give its elements' shapes with --sequence {}=DIMS,DIMS,... "
          "(e.g. 3x4,2x4; 'scalar' for a scalar, nothing for an empty sequence){}",
          name, name, value.optional ? fmt::format(", or --absent {} if it is empty", name) : ""));
    for (size_t k = 0; k < shapes->second.size(); ++k) {
      const Shape &shape = shapes->second[k];
      std::string element = fmt::format("{}.{}", name, k);
      CUVIL_TRY(checkInputSize(element, *dtype, shape));
      value.tensors.push_back(graph_->addInput(element, TensorType{*dtype, shape}));
    }
    top_.composites[name] = value;
    return Status::success();
  }

  // A sequence output is one output per element, NAME.K; an optional one
  // its value's, or none when it is empty.
  void addCompositeOutput(const std::string &name, const CompositeValue &value) {
    if (!value.present)
      return;
    if (!value.sequence) {
      graph_->addOutput(value.tensors[0], name);
      return;
    }
    for (size_t k = 0; k < value.tensors.size(); ++k)
      graph_->addOutput(value.tensors[k], fmt::format("{}.{}", name, k));
  }

  // Every input an option names exists: a misspelt name would otherwise
  // compile the model without the option.
  Status checkOptionNames() const {
    std::vector<std::string> problems, names;
    for (const Value *input : graph_->inputs())
      names.push_back("'" + input->name() + "'");
    auto check = [&](const auto &map, const char *option) {
      for (const auto &entry : map)
        if ((!graph_->findValue(entry.first) || !graph_->findValue(entry.first)->isGraphInput()) &&
            !top_.composites.count(entry.first))
          problems.push_back(fmt::format("{} names '{}', which is not an input of the model",
                                         option, entry.first));
    };
    check(options_.inputShapes, "--shape");
    check(options_.inputRanges, "--shape-range");
    check(options_.inputValues, "--value or --value-range");
    check(options_.inputSequences, "--sequence");
    for (const std::string &name : options_.absentInputs)
      if (!top_.composites.count(name) || !top_.composites.at(name).optional)
        problems.push_back(
            fmt::format("--absent names '{}', which is not an optional input of the model", name));
    if (problems.empty())
      return Status::success();
    return Status::error(
        fmt::format("{} (its inputs: {})", fmt::join(problems, "; "),
                    names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
  }

  // An integer input's values as dims: its fixed elements constants, its
  // ranged ones symbols <input>_value<k>.
  Status defineValues(Value &input, const ValueRange &range) {
    const std::string &name = input.name();
    const TensorType &type = input.type();
    if (isFloat(type.dtype))
      return fixFloatingValues(input, range);
    if (!range.integral)
      return Status::error(fmt::format(
          "--value {}: the input is {}, and its values must be integers", name, type.str()));
    size_t count = range.min.size();
    if (range.opt.size() != count || range.max.size() != count)
      return Status::error(
          fmt::format("--value-range {}: MIN, OPT and MAX must have as many values", name));
    bool integer = type.dtype == DType::I64 || type.dtype == DType::I32;
    bool flag =
        type.dtype == DType::Bool && range.min == range.max &&
        std::all_of(range.min.begin(), range.min.end(), [](int64_t v) { return v == 0 || v == 1; });
    if ((!integer && !flag) || !type.isStatic() ||
        type.numElements().constant() != int64_t(count) || count > size_t(64))
      return Status::error(fmt::format(
          "--value {}: gives {} values, but the input is {} (a value option takes an int64, "
          "int32 or floating-point input of static shape, or a bool one with fixed values 0 or "
          "1, at most 64 elements, one value per element)",
          name, count, type.str()));
    std::vector<Dim> dims;
    for (size_t k = 0; k < count; ++k) {
      int64_t lo = range.min[k], opt = range.opt[k], hi = range.max[k];
      if (lo == hi && opt == lo) {
        dims.push_back(Dim(lo));
        continue;
      }
      if (!(0 <= lo && lo <= opt && opt <= hi))
        return Status::error(fmt::format(
            "--value-range {}: element {} must have 0 <= MIN <= OPT <= MAX, not {}:{}:{}", name, k,
            lo, opt, hi));
      std::string symbol = symbolNameFrom(fmt::format("{}_value{}", name, k));
      if (graph_->findSymbol(symbol))
        return Status::error(
            fmt::format("--value-range {}: the symbol '{}' exists already", name, symbol));
      dims.push_back(
          Dim::symbol(graph_->addSymbol({.name = symbol, .min = lo, .opt = opt, .max = hi})));
    }
    input.setDimValues(std::move(dims));
    return Status::success();
  }

  // A floating-point input fixed by --value: the graph reads a constant of
  // those values (rounded to the input's type), and infer.bin refuses data
  // that differs from them.
  Status fixFloatingValues(Value &input, const ValueRange &range) {
    const TensorType &type = input.type();
    if (range.ranged)
      return Status::error(fmt::format("--value-range {}: the input is {}; only integer inputs "
                                       "take a range",
                                       input.name(), type.str()));
    size_t count = range.reals.size();
    if (!type.isStatic() || type.numElements().constant() != int64_t(count) || count > size_t(64))
      return Status::error(fmt::format(
          "--value {}: gives {} values, but the input is {} (a value option takes an input of "
          "static shape, at most 64 elements, one value per element)",
          input.name(), count, type.str()));
    Tensor data(type);
    for (size_t k = 0; k < count; ++k) {
      if (!std::isfinite(range.reals[k]))
        return Status::error(fmt::format("--value {}: element {} is {}, which no data equals",
                                         input.name(), k, range.reals[k]));
      data.setDouble(int64_t(k), range.reals[k]);
    }
    input.setFixedData(data);
    bind(input.name(), graph_->addConstant(graph_->uniqueName(input.name() + ".value"), data));
    return Status::success();
  }

  // An input whose largest size does not fit in 64 bits (infer.bin would
  // allocate it) is refused.
  static Status checkInputSize(const std::string &name, DType dtype, const Shape &shape) {
    uint64_t bytes = dtypeSize(dtype);
    for (const Dim &dim : shape) {
      uint64_t extent = uint64_t(dim.max());
      if (extent != 0 && bytes > (uint64_t(1) << 62) / extent)
        return Status::error(fmt::format("input '{}' of shape [{}] has more bytes than fit in 64 "
                                         "bits",
                                         name, shapeToString(shape)));
      bytes *= extent;
    }
    return Status::success();
  }

  // The symbol a ranged input's dim d is named by.
  static std::string symbolName(const onnx::ValueInfoProto &input, int d) {
    const auto &shape = input.type().tensor_type().shape();
    return symbolNameFrom(d < shape.dim_size() && shape.dim(d).has_dim_param()
                              ? shape.dim(d).dim_param()
                              : fmt::format("{}_{}", input.name(), d));
  }

  // The extent the model itself gives dim d, if it gives one.
  static std::optional<int64_t> modelDimValue(const onnx::TypeProto_Tensor &type, int d) {
    if (!type.has_shape() || d >= type.shape().dim_size() || !type.shape().dim(d).has_dim_value() ||
        type.shape().dim(d).dim_value() < 0)
      return std::nullopt;
    return type.shape().dim(d).dim_value();
  }

  Status defineSymbols(const onnx::ValueInfoProto &input, const ShapeRange &range) {
    const std::string &name = input.name();
    const auto &type = input.type().tensor_type();
    size_t rank = range.min.size();
    if (range.opt.size() != rank || range.max.size() != rank)
      return Status::error(
          fmt::format("--shape-range {}: MIN, OPT and MAX must have the same rank", name));
    if (type.has_shape() && type.shape().dim_size() != int(rank))
      return Status::error(
          fmt::format("--shape-range {} has rank {}, the model's input has rank {}", name, rank,
                      type.shape().dim_size()));
    for (size_t d = 0; d < rank; ++d) {
      int64_t lo = range.min[d], opt = range.opt[d], hi = range.max[d];
      if (!(0 <= lo && lo <= opt && opt <= hi))
        return Status::error(
            fmt::format("--shape-range {}: dim {} must have 0 <= MIN <= OPT <= MAX, not {}:{}:{}",
                        name, d, lo, opt, hi));
      if (std::optional<int64_t> fixed = modelDimValue(type, int(d));
          fixed && (lo != *fixed || hi != *fixed))
        return Status::error(
            fmt::format("--shape-range {}: dim {} is {}:{}:{}, but the model fixes it at {}", name,
                        d, lo, opt, hi, *fixed));
      if (lo == hi)
        continue;
      std::string symbol = symbolName(input, int(d));
      if (std::optional<SymbolId> known = graph_->findSymbol(symbol)) {
        const SymbolInfo &info = SymbolTable::global().info(*known);
        if (info.min != lo || info.opt != opt || info.max != hi)
          return Status::error(fmt::format(
              "--shape-range gives '{}' (input '{}' dim {}) the range {}:{}:{}, but another input "
              "gives it {}:{}:{}",
              symbol, name, d, lo, opt, hi, info.min, info.opt, info.max));
        continue;
      }
      graph_->addSymbol({.name = symbol, .min = lo, .opt = opt, .max = hi});
    }
    return Status::success();
  }

  Expected<Shape> inputShape(const onnx::ValueInfoProto &input,
                             const onnx::TypeProto_Tensor &type) {
    const std::string &name = input.name();
    auto ranged = options_.inputRanges.find(name);
    if (ranged != options_.inputRanges.end()) {
      const ShapeRange &range = ranged->second;
      Shape shape;
      for (size_t d = 0; d < range.min.size(); ++d)
        shape.push_back(range.min[d] == range.max[d]
                            ? Dim(range.min[d])
                            : Dim::symbol(*graph_->findSymbol(symbolName(input, int(d)))));
      return shape;
    }
    auto fixed = options_.inputShapes.find(name);
    if (fixed != options_.inputShapes.end()) {
      if (type.has_shape() && type.shape().dim_size() != int(fixed->second.size()))
        return Status::error(fmt::format("--shape {}={} has rank {}, the model's input has rank {}",
                                         name, shapeToString(fixed->second, 'x'),
                                         fixed->second.size(), type.shape().dim_size()));
      for (size_t d = 0; d < fixed->second.size(); ++d)
        if (std::optional<int64_t> known = modelDimValue(type, int(d));
            known && fixed->second[d] != Dim(*known))
          return Status::error(
              fmt::format("--shape {}={}: dim {} is {}, but the model fixes it at {}", name,
                          shapeToString(fixed->second, 'x'), d, fixed->second[d].str(), *known));
      return fixed->second;
    }
    if (!type.has_shape())
      return Status::error(
          fmt::format("input '{}' has no shape; fix it with --shape {}=...", name, name));
    Shape shape;
    for (int i = 0; i < type.shape().dim_size(); ++i) {
      const auto &dim = type.shape().dim(i);
      if (dim.has_dim_value() && dim.dim_value() < 0)
        return Status::error(fmt::format("input '{}' dim {} is {}; dims must not be negative", name,
                                         i, dim.dim_value()));
      if (dim.has_dim_value()) {
        shape.push_back(dim.dim_value());
        continue;
      }
      // A dim_param another input's --shape-range made a symbol.
      if (dim.has_dim_param())
        if (std::optional<SymbolId> symbol = graph_->findSymbol(symbolName(input, i))) {
          shape.push_back(Dim::symbol(*symbol));
          continue;
        }
      std::string symbol = dim.has_dim_param() ? "'" + dim.dim_param() + "'" : "unnamed";
      return Status::error(fmt::format(
          "input '{}' has symbolic dimension {} (dim {}); fix it with --shape {}=<dims, e.g. "
          "1x3x224x224>, or give its range with --shape-range {}=MIN:OPT:MAX",
          name, symbol, i, name, name));
    }
    return shape;
  }

  Expected<Attribute> convertAttribute(const onnx::AttributeProto &attr) {
    switch (attr.type()) {
    case onnx::AttributeProto::INT:
      return Attribute(int64_t(attr.i()));
    case onnx::AttributeProto::FLOAT:
      return Attribute(attr.f());
    case onnx::AttributeProto::STRING:
      return Attribute(attr.s());
    case onnx::AttributeProto::INTS:
      return Attribute(std::vector<int64_t>(attr.ints().begin(), attr.ints().end()));
    case onnx::AttributeProto::FLOATS:
      return Attribute(std::vector<float>(attr.floats().begin(), attr.floats().end()));
    case onnx::AttributeProto::STRINGS:
      return Attribute(std::vector<std::string>(attr.strings().begin(), attr.strings().end()));
    case onnx::AttributeProto::TENSOR: {
      Expected<Tensor> tensor = readTensorProto(attr.t(), modelDir_);
      CUVIL_TRY(tensor.status());
      return Attribute(tensor.take());
    }
    default:
      return Status::error(fmt::format("attribute '{}' has an unsupported kind", attr.name()));
    }
  }

  // An initializer or a Constant's tensor: an IR constant, or for strings
  // (which constants never hold) the StringConstant that makes them.
  Expected<Value *> constantValue(Graph &graph, const std::string &name,
                                  const onnx::TensorProto &proto) {
    if (proto.data_type() == dtypeOnnxCode(DType::String)) {
      Expected<StringTensor> strings = readStringTensorProto(proto);
      CUVIL_TRY(strings.status());
      return addStringConstant(graph, name, strings->shape, strings->strings);
    }
    Expected<Tensor> tensor = readTensorProto(proto, modelDir_);
    CUVIL_TRY(tensor.status());
    return graph.addConstant(name, tensor.take());
  }

  // Constant nodes become IR constants directly (strings: StringConstant).
  Status importConstant(const onnx::NodeProto &node) {
    if (node.attribute_size() != 1 || node.output_size() != 1 || node.output(0).empty())
      return Status::error("expects exactly one value attribute and one named result");
    if (scope_->values.count(node.output(0)))
      return Status::error(fmt::format("value '{}' is defined twice", node.output(0)));
    const onnx::AttributeProto &attr = node.attribute(0);
    std::optional<Tensor> value;
    if (attr.name() == "value") { // a tensor, of strings too
      Expected<Value *> tensor = constantValue(*scope_->graph, node.output(0), attr.t());
      CUVIL_TRY(tensor.status());
      bind(node.output(0), *tensor);
      return Status::success();
    }
    if (attr.name() == "value_string" || attr.name() == "value_strings") {
      std::vector<std::string> strings(attr.strings().begin(), attr.strings().end());
      Shape shape = {int64_t(strings.size())};
      if (attr.name() == "value_string") {
        strings = {attr.s()};
        shape = {};
      }
      bind(node.output(0), addStringConstant(*scope_->graph, node.output(0), shape, strings));
      return Status::success();
    }
    if (attr.name() == "value_float") {
      value = Tensor::scalarF32(attr.f());
    } else if (attr.name() == "value_floats") {
      std::vector<float> floats(attr.floats().begin(), attr.floats().end());
      value = Tensor::fromFloats(floats, {int64_t(floats.size())});
    } else if (attr.name() == "value_int") {
      int64_t i = attr.i();
      value = Tensor::fromInt64s(std::span(&i, 1), {});
    } else if (attr.name() == "value_ints") {
      std::vector<int64_t> ints(attr.ints().begin(), attr.ints().end());
      value = Tensor::fromInt64s(ints, {int64_t(ints.size())});
    } else {
      return Status::error(fmt::format("attribute '{}' is not supported", attr.name()));
    }
    bind(node.output(0), scope_->graph->addConstant(node.output(0), std::move(*value)));
    return Status::success();
  }

  // The value `name` stands for in `scope`: its own, or one of an enclosing
  // scope, which a region copies in (a constant) or captures (any other
  // value: an operand of the region's node and an input of its regions).
  Value *lookup(Scope &scope, const std::string &name) {
    if (auto it = scope.values.find(name); it != scope.values.end())
      return it->second;
    Value *outer = scope.parent ? lookup(*scope.parent, name) : nullptr;
    if (!outer || !scope.owner) // a body inlined in its enclosing graph reads it directly
      return outer;
    Graph &region = *scope.graph;
    Value *local = nullptr;
    if (outer->isConstant()) {
      local = region.addConstant(name, outer->constant());
    } else {
      Node &owner = *scope.owner;
      size_t captures = owner.numCaptures(), regionIndex = 0;
      while (&owner.region(regionIndex) != &region)
        ++regionIndex;
      for (size_t k = 0; k < captures && !local; ++k)
        if (owner.input(owner.numInputs() - captures + k) == outer)
          local = region.inputs()[region.inputs().size() - captures + k];
      if (!local)
        local = owner.addCapture(outer, name)[regionIndex];
    }
    scope.values[name] = local;
    return local;
  }

  // An op of another domain written out in the IR's ops: an optimiser
  // update, or a com.microsoft quantized op.
  Status importWrittenOut(const onnx::NodeProto &proto) {
    std::vector<Value *> inputs;
    for (const std::string &name : proto.input()) {
      Expected<Value *> value = name.empty() ? Expected<Value *>(nullptr) : tensor(name);
      CUVIL_TRY(value.status());
      inputs.push_back(*value);
    }
    if (isMicrosoftQuantizedOp(proto)) {
      Expected<Value *> result = importMicrosoftQuantizedOp(proto, *scope_->graph, inputs);
      CUVIL_TRY(result.status());
      bind(proto.output(0), *result);
      return Status::success();
    }
    Expected<std::vector<Value *>> results = importOptimizerOp(proto, *scope_->graph, inputs);
    CUVIL_TRY(results.status());
    for (int i = 0; i < proto.output_size(); ++i)
      if (!proto.output(i).empty())
        bind(proto.output(i), (*results)[size_t(i)]);
    return Status::success();
  }

  // The branch an If takes when its condition is known while importing (a
  // constant, or an input --value fixed): 0 then, 1 else.
  std::optional<int> knownBranch(const onnx::NodeProto &proto) {
    if (proto.op_type() != "If" || proto.input_size() < 1)
      return std::nullopt;
    Value *condition = lookup(*scope_, proto.input(0));
    std::optional<bool> known = condition ? knownFlag(condition) : std::nullopt;
    if (!known)
      return std::nullopt;
    return *known ? 0 : 1;
  }

  // A one-element bool a constant, a --value, or Identity and Not of them
  // give (OptionalHasElement is a constant already).
  static std::optional<bool> knownFlag(const Value *value) {
    if (value->isConstant() && value->constant().numElements() == 1)
      return value->constant().getInt(0) != 0;
    if (const std::vector<Dim> *dims = value->dimValues();
        dims && dims->size() == 1 && (*dims)[0].isConstant())
      return (*dims)[0].constant() != 0;
    const Node *producer = value->producer();
    if (!producer || producer->numInputs() != 1 || !producer->input(0) ||
        (producer->op() != "Identity" && producer->op() != "Not"))
      return std::nullopt;
    std::optional<bool> operand = knownFlag(producer->input(0));
    if (!operand)
      return std::nullopt;
    return producer->op() == "Not" ? !*operand : *operand;
  }

  // The taken branch's nodes in the enclosing graph, its outputs (tensors,
  // sequences or optionals) the If's results.
  Status inlineBranch(const onnx::NodeProto &proto, int branch) {
    const char *name = branch == 0 ? "then_branch" : "else_branch";
    auto attr = std::find_if(proto.attribute().begin(), proto.attribute().end(),
                             [&](const onnx::AttributeProto &a) { return a.name() == name; });
    if (attr == proto.attribute().end() || attr->type() != onnx::AttributeProto::GRAPH)
      return Status::error(fmt::format("the graph attribute '{}' is missing", name));
    Expected<std::vector<BoundValue>> outputs = inlineBody(attr->g(), {});
    CUVIL_TRY(outputs.status().withContext(fmt::format("in region '{}'", name)));
    if (int(outputs->size()) != proto.output_size())
      return Status::error(fmt::format("{} returns {} values for {} results", name, outputs->size(),
                                       proto.output_size()));
    for (int i = 0; i < proto.output_size(); ++i) {
      if (proto.output(i).empty())
        continue;
      if (scope_->values.count(proto.output(i)) || scope_->composites.count(proto.output(i)))
        return Status::error(fmt::format("value '{}' is defined twice", proto.output(i)));
      const BoundValue &output = (*outputs)[size_t(i)];
      if (std::holds_alternative<Value *>(output))
        bind(proto.output(i), std::get<Value *>(output));
      else
        bind(proto.output(i), std::get<CompositeValue>(output));
    }
    return Status::success();
  }

  // A control-flow node's graph attributes, as its regions in the order its
  // op names them: every region's own inputs first (captures follow them),
  // then each one's nodes.
  Status importRegions(const onnx::NodeProto &proto, Node &node) {
    const OpSchema &schema = *OpRegistry::instance().find(proto.op_type());
    std::vector<std::pair<const onnx::GraphProto *, Scope>> regions;
    for (std::string_view name : schema.regions) {
      auto attr = std::find_if(proto.attribute().begin(), proto.attribute().end(),
                               [&](const onnx::AttributeProto &a) { return a.name() == name; });
      if (attr == proto.attribute().end() || attr->type() != onnx::AttributeProto::GRAPH)
        return Status::error(fmt::format("the graph attribute '{}' is missing", name));
      regions.push_back(
          {&attr->g(), Scope{&node.addRegion(std::string(name)), {}, scope_, &node, {}}});
    }
    for (const onnx::AttributeProto &attr : proto.attribute())
      if (attr.type() == onnx::AttributeProto::GRAPH &&
          std::find(schema.regions.begin(), schema.regions.end(), attr.name()) ==
              schema.regions.end())
        return Status::error(fmt::format("unknown graph attribute '{}'", attr.name()));
    for (auto &[graph, scope] : regions)
      for (const onnx::ValueInfoProto &input : graph->input()) {
        if (input.name().empty() || scope.values.count(input.name()))
          return Status::error(fmt::format("region '{}' has an unnamed or repeated input '{}'",
                                           scope.graph->name(), input.name()));
        scope.values[input.name()] = scope.graph->addInput(input.name(), std::nullopt);
      }
    for (auto &[graph, scope] : regions) {
      Scope *enclosing = std::exchange(scope_, &scope);
      Status status = importGraphBody(*graph);
      scope_ = enclosing;
      CUVIL_TRY(status.withContext(fmt::format("in region '{}'", scope.graph->name())));
    }
    return Status::success();
  }

  // A region's initializers, nodes and outputs, into the current scope.
  Status importGraphBody(const onnx::GraphProto &graph) {
    for (const onnx::TensorProto &initializer : graph.initializer()) {
      if (scope_->values.count(initializer.name()))
        return Status::error(fmt::format("initializer '{}' is defined twice", initializer.name()));
      Expected<Value *> value = constantValue(*scope_->graph, initializer.name(), initializer);
      CUVIL_TRY(value.status());
      bind(initializer.name(), *value);
    }
    for (int index = 0; index < graph.node_size(); ++index)
      CUVIL_TRY(importNode(graph.node(index)).withContext(nodeLabel(graph.node(index), index)));
    for (const onnx::ValueInfoProto &output : graph.output()) {
      if (isComposite(output.name()))
        return Status::error(fmt::format("output '{}' is a sequence or optional, which If, Loop "
                                         "and Scan return only when they are unrolled",
                                         output.name()));
      Value *value = lookup(*scope_, output.name());
      if (!value)
        return Status::error(fmt::format("output '{}' is never produced", output.name()));
      scope_->graph->addOutput(value, output.name());
    }
    return Status::success();
  }

  Status importNode(const onnx::NodeProto &proto) {
    if (proto.op_type() == "Constant")
      return importConstant(proto);
    bool carriesComposite =
        proto.op_type() == "Loop" &&
        std::any_of(proto.input().begin() + std::min(2, proto.input_size()), proto.input().end(),
                    [&](const std::string &name) { return isComposite(name); });
    if (isCompositeOp(proto.op_type()) || carriesComposite ||
        (proto.op_type() == "Identity" && proto.input_size() == 1 && isComposite(proto.input(0))))
      return importCompositeOp(proto, *this);
    for (const std::string &name : proto.input())
      if (!name.empty() && isComposite(name))
        return Status::error(fmt::format("input '{}' is a sequence or optional, which only the "
                                         "sequence and optional ops take",
                                         name));
    if (std::optional<int> branch = knownBranch(proto))
      return inlineBranch(proto, *branch);
    if (isOptimizerOp(proto) || isMicrosoftQuantizedOp(proto))
      return importWrittenOut(proto);
    std::vector<Value *> inputs;
    for (const std::string &name : proto.input()) {
      if (name.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      Value *value = lookup(*scope_, name);
      if (!value)
        return Status::error(fmt::format("input '{}' is not defined before this node", name));
      inputs.push_back(value);
    }
    // Trailing omitted inputs are dropped (not for a node that captures
    // values after them).
    while (!inputs.empty() && !inputs.back() && !takesRegions(proto))
      inputs.pop_back();
    // Trailing omitted results are dropped (not a control-flow node's, whose
    // regions give all of them); inner ones get placeholder names.
    int outputs = proto.output_size();
    while (outputs > 0 && proto.output(outputs - 1).empty() && !takesRegions(proto))
      --outputs;
    if (outputs == 0)
      return Status::error("the node has no results (every output name is empty)");
    std::vector<std::string> outputNames;
    for (int i = 0; i < outputs; ++i)
      outputNames.push_back(proto.output(i).empty() ? proto.name() + ".unused" : proto.output(i));
    for (const std::string &name : outputNames)
      if (scope_->values.count(name))
        return Status::error(fmt::format("value '{}' is defined twice", name));
    Node *node = scope_->graph->addNode(proto.op_type(), inputs, outputNames);
    node->setName(proto.name());
    for (const onnx::AttributeProto &attr : proto.attribute()) {
      if (attr.type() == onnx::AttributeProto::GRAPH)
        continue; // importRegions
      Expected<Attribute> value = convertAttribute(attr);
      CUVIL_TRY(value.status());
      node->setAttr(attr.name(), value.take());
    }
    if (takesRegions(proto)) {
      Status status = importRegions(proto, *node);
      if (!status.ok() && proto.op_type() == "If" && !inputs.empty() && inputs[0] &&
          inputs[0]->isGraphInput())
        status = status.withContext(fmt::format(
            "an If whose branches give sequences or optionals needs its condition at compile "
            "time: fix the values of graph input '{}' with --value {}=0 or 1",
            inputs[0]->name(), inputs[0]->name()));
      CUVIL_TRY(status);
    }
    Expected<std::vector<Value *>> results =
        adaptToLatestOpset(*scope_->graph, *node, adaptContext_);
    CUVIL_TRY(results.status());
    for (int i = 0; i < outputs; ++i)
      if (!proto.output(i).empty())
        bind(proto.output(i), (*results)[size_t(i)]);
    return Status::success();
  }

  // CompositeScope
  Graph &graph() override { return *scope_->graph; }
  Expected<Value *> tensor(const std::string &name) override {
    if (isComposite(name))
      return Status::error(fmt::format("input '{}' is a sequence or optional, not a tensor", name));
    Value *value = lookup(*scope_, name);
    if (!value)
      return Status::error(fmt::format("input '{}' is not defined before this node", name));
    return value;
  }
  bool isComposite(const std::string &name) const override {
    for (const Scope *scope = scope_; scope; scope = scope->parent) {
      if (scope->composites.count(name))
        return true;
      if (scope->values.count(name))
        return false;
    }
    return false;
  }
  Expected<CompositeValue> composite(const std::string &name) override {
    for (const Scope *scope = scope_; scope; scope = scope->parent) {
      if (auto it = scope->composites.find(name); it != scope->composites.end()) {
        if (scope != scope_ && scope_->owner)
          return Status::error(fmt::format("sequence or optional '{}' is read inside If, Loop or "
                                           "Scan, which take tensors only",
                                           name));
        return it->second;
      }
    }
    return Status::error(fmt::format("input '{}' is not a sequence or optional defined before "
                                     "this node",
                                     name));
  }
  void bind(const std::string &name, Value *tensor) override { scope_->values[name] = tensor; }
  std::optional<int64_t> inferredExtent(const std::string &name, int64_t axis) override {
    return inferred_.extent(name, axis);
  }
  void bind(const std::string &name, CompositeValue value) override {
    scope_->composites[name] = std::move(value);
  }
  Expected<std::vector<BoundValue>> inlineBody(const onnx::GraphProto &body,
                                               const std::vector<BoundValue> &inputs) override {
    if (body.input_size() != int(inputs.size()))
      return Status::error(
          fmt::format("the body takes {} inputs, not {}", body.input_size(), inputs.size()));
    Scope inlined{scope_->graph, {}, scope_, nullptr, {}};
    for (int i = 0; i < body.input_size(); ++i) {
      const BoundValue &input = inputs[size_t(i)];
      if (std::holds_alternative<Value *>(input))
        inlined.values[body.input(i).name()] = std::get<Value *>(input);
      else
        inlined.composites[body.input(i).name()] = std::get<CompositeValue>(input);
    }
    Scope *enclosing = std::exchange(scope_, &inlined);
    std::vector<BoundValue> outputs;
    Status status = Status::success();
    for (const onnx::TensorProto &initializer : body.initializer()) {
      Expected<Value *> value = constantValue(*inlined.graph, initializer.name(), initializer);
      if (!(status = value.status()).ok())
        break;
      bind(initializer.name(), *value);
    }
    for (int index = 0; status.ok() && index < body.node_size(); ++index)
      status = importNode(body.node(index)).withContext(nodeLabel(body.node(index), index));
    for (int o = 0; status.ok() && o < body.output_size(); ++o) {
      Expected<BoundValue> output = value(body.output(o).name());
      status = output.status().withContext(fmt::format("output '{}'", body.output(o).name()));
      if (status.ok())
        outputs.push_back(*output);
    }
    scope_ = enclosing;
    CUVIL_TRY(status);
    return outputs;
  }

  onnx::ModelProto &model_;
  std::string modelDir_;
  const ImportOptions &options_;
  int64_t opset_ = 0;
  std::vector<int64_t> nodeOpsets_; // the opset each node's form follows
  AdaptContext adaptContext_;
  std::unique_ptr<Graph> graph_;
  Scope top_{nullptr, {}, nullptr, nullptr, {}};
  Scope *scope_ = &top_; // the graph being imported
  InferredExtents inferred_{model_, options_};
};

} // namespace

Expected<std::unique_ptr<Graph>> importOnnxModel(const std::string &path,
                                                 const ImportOptions &options) {
  Expected<onnx::ModelProto> model = loadModelProto(path);
  CUVIL_TRY(model.status());
  std::filesystem::path file(path);
  return Importer(*model, file.parent_path().string(), options).run(file.stem().string());
}

Expected<std::unique_ptr<Graph>> importOnnxModelBytes(std::string_view bytes,
                                                      const std::string &modelDir,
                                                      const ImportOptions &options) {
  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream coded(reinterpret_cast<const uint8_t *>(bytes.data()),
                                               int(std::min<size_t>(bytes.size(), INT32_MAX)));
  coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
  if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    return Status::error("not a valid ONNX model (protobuf parse failed)");
  if (!model.has_graph())
    return Status::error("holds no graph (an empty file, or not an ONNX model)");
  return Importer(model, modelDir, options).run("model");
}

} // namespace cuvil
