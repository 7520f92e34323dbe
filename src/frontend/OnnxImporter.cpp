#include "cuvil/frontend/OnnxImporter.h"

#include "FunctionInliner.h"
#include "IsolatedShapeInference.h"
#include "OpsetAdapters.h"
#include "TensorProtoReader.h"
#include "cuvil/ir/OpSchema.h"

#include <cctype>
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

constexpr int64_t kMinOpset = 1, kMaxOpset = 23;

Expected<onnx::ModelProto> loadModelProto(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return Status::error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  onnx::ModelProto model;
  bool parsed;
  {
    google::protobuf::io::FileInputStream file(fd);
    google::protobuf::io::CodedInputStream coded(&file);
    coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
    parsed = model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  ::close(fd);
  if (!parsed)
    return Status::error(fmt::format("{} is not a valid ONNX model (protobuf parse failed)", path));
  if (!model.has_graph())
    return Status::error(
        fmt::format("{} holds no graph (an empty file, or not an ONNX model)", path));
  return model;
}

bool isDefaultDomain(const std::string &domain) { return domain.empty() || domain == "ai.onnx"; }

std::string nodeLabel(const onnx::NodeProto &node, int index) {
  std::string name = !node.name().empty()      ? node.name()
                     : node.output_size() != 0 ? node.output(0)
                                               : fmt::format("#{}", index);
  std::string op =
      isDefaultDomain(node.domain()) ? node.op_type() : node.domain() + "." + node.op_type();
  return fmt::format("node '{}' ({})", name, op);
}

class Importer {
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
    const onnx::GraphProto &graph = model_.graph();
    for (const onnx::TensorProto &initializer : graph.initializer()) {
      if (values_.count(initializer.name()))
        return Status::error(fmt::format("initializer '{}' is defined twice", initializer.name()));
      Expected<Tensor> tensor = readTensorProto(initializer, modelDir_);
      CUVIL_TRY(tensor.status());
      bind(initializer.name(), graph_->addConstant(initializer.name(), tensor.take()));
    }
    CUVIL_TRY(importInputs());
    for (int index = 0; index < graph.node_size(); ++index) {
      const onnx::NodeProto &node = graph.node(index);
      adaptContext_.opset = nodeOpsets_[size_t(index)];
      CUVIL_TRY(importNode(node).withContext(nodeLabel(node, index)));
    }
    // Every node is in its newest opset's form now: give it the attribute
    // defaults its schema declares, so that nothing downstream repeats them.
    for (const auto &node : graph_->nodes())
      fillDefaultAttributes(*node);
    std::vector<std::string> missing;
    for (const onnx::ValueInfoProto &output : graph.output()) {
      auto it = values_.find(output.name());
      if (it == values_.end()) {
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
        if (auto it = values_.find(info.name());
            it != values_.end() && it->second->producer() && !it->second->isGraphInput())
          it->second->setDeclaredType(declaredType(info));
    return std::move(graph_);
  }

private:
  Status readOpset() {
    bool found = false;
    for (const auto &import : model_.opset_import())
      if (isDefaultDomain(import.domain())) {
        opset_ = import.version();
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

  // Lists every node that cannot be compiled, so the user sees all at once.
  Status checkNodes() {
    std::vector<std::string> problems;
    int index = 0;
    for (const onnx::NodeProto &node : model_.graph().node()) {
      std::string label = nodeLabel(node, index++);
      if (!isDefaultDomain(node.domain()))
        problems.push_back(fmt::format("{}: domain '{}' is not supported", label, node.domain()));
      else if (!isNative(node))
        problems.push_back(fmt::format("{}: operator not supported", label));
      for (const onnx::AttributeProto &attr : node.attribute()) {
        if (attr.type() == onnx::AttributeProto::GRAPH ||
            attr.type() == onnx::AttributeProto::GRAPHS)
          problems.push_back(
              fmt::format("{}: subgraph attribute '{}' is not supported", label, attr.name()));
        else if (std::optional<std::string> problem = attributeKindProblem(node, attr))
          problems.push_back(fmt::format("{}: {}", label, *problem));
      }
    }
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
    // Attributes later opsets made inputs or dropped: (op, name, kind).
    static const std::vector<std::tuple<std::string_view, std::string_view, AttrKind>> kLegacy = {
        {"", "axes", AttrKind::Ints},          {"Split", "split", AttrKind::Ints},
        {"Slice", "starts", AttrKind::Ints},   {"Slice", "ends", AttrKind::Ints},
        {"Clip", "min", AttrKind::Float},      {"Clip", "max", AttrKind::Float},
        {"Pad", "pads", AttrKind::Ints},       {"Pad", "value", AttrKind::Float},
        {"Dropout", "ratio", AttrKind::Float}, {"Reshape", "shape", AttrKind::Ints},
        {"TopK", "k", AttrKind::Int},          {"", "broadcast", AttrKind::Int},
        {"", "axis", AttrKind::Int},           {"", "spatial", AttrKind::Int},
        {"", "is_test", AttrKind::Int},        {"", "consumed_inputs", AttrKind::Ints},
        {"", "keepdims", AttrKind::Int},       {"", "noop_with_empty_axes", AttrKind::Int}};
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
    return isDefaultDomain(node.domain()) &&
           (node.op_type() == "Constant" || OpRegistry::instance().find(node.op_type()) ||
            adaptsAway(node.op_type(), opset_));
  }

  void bind(const std::string &name, Value *value) { values_[name] = value; }

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
      if (range != options_.inputRanges.end() && !values_.count(input.name()))
        CUVIL_TRY(defineSymbols(input, range->second));
    }
    for (const onnx::ValueInfoProto &input : model_.graph().input()) {
      if (values_.count(input.name())) { // an initializer listed as input (IR < 4)
        if (values_.at(input.name())->isGraphInput())
          return Status::error(fmt::format("input '{}' is listed twice", input.name()));
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

  // Every input an option names exists: a misspelt name would otherwise
  // compile the model without the option.
  Status checkOptionNames() const {
    std::vector<std::string> problems, names;
    for (const Value *input : graph_->inputs())
      names.push_back("'" + input->name() + "'");
    auto check = [&](const auto &map, const char *option) {
      for (const auto &entry : map)
        if (!graph_->findValue(entry.first) || !graph_->findValue(entry.first)->isGraphInput())
          problems.push_back(fmt::format("{} names '{}', which is not an input of the model",
                                         option, entry.first));
    };
    check(options_.inputShapes, "--shape");
    check(options_.inputRanges, "--shape-range");
    check(options_.inputValues, "--value or --value-range");
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
    size_t count = range.min.size();
    if (range.opt.size() != count || range.max.size() != count)
      return Status::error(
          fmt::format("--value-range {}: MIN, OPT and MAX must have as many values", name));
    if ((type.dtype != DType::I64 && type.dtype != DType::I32) || !type.isStatic() ||
        type.numElements().constant() != int64_t(count) || count > size_t(64))
      return Status::error(fmt::format(
          "--value {}: gives {} values, but the input is {} (a value option takes an int64 or "
          "int32 input of static shape, at most 64 elements, one value per element)",
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

  // Constant nodes become IR constants directly.
  Status importConstant(const onnx::NodeProto &node) {
    if (node.attribute_size() != 1 || node.output_size() != 1 || node.output(0).empty())
      return Status::error("expects exactly one value attribute and one named result");
    if (values_.count(node.output(0)))
      return Status::error(fmt::format("value '{}' is defined twice", node.output(0)));
    const onnx::AttributeProto &attr = node.attribute(0);
    std::optional<Tensor> value;
    if (attr.name() == "value") {
      Expected<Tensor> tensor = readTensorProto(attr.t(), modelDir_);
      CUVIL_TRY(tensor.status());
      value = tensor.take();
    } else if (attr.name() == "value_float") {
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
    bind(node.output(0), graph_->addConstant(node.output(0), std::move(*value)));
    return Status::success();
  }

  Status importNode(const onnx::NodeProto &proto) {
    if (proto.op_type() == "Constant")
      return importConstant(proto);
    std::vector<Value *> inputs;
    for (const std::string &name : proto.input()) {
      if (name.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      auto it = values_.find(name);
      if (it == values_.end())
        return Status::error(fmt::format("input '{}' is not defined before this node", name));
      inputs.push_back(it->second);
    }
    while (!inputs.empty() && !inputs.back())
      inputs.pop_back();
    // Trailing omitted results are dropped; inner ones get placeholder names.
    int outputs = proto.output_size();
    while (outputs > 0 && proto.output(outputs - 1).empty())
      --outputs;
    if (outputs == 0)
      return Status::error("the node has no results (every output name is empty)");
    std::vector<std::string> outputNames;
    for (int i = 0; i < outputs; ++i)
      outputNames.push_back(proto.output(i).empty() ? proto.name() + ".unused" : proto.output(i));
    for (const std::string &name : outputNames)
      if (values_.count(name))
        return Status::error(fmt::format("value '{}' is defined twice", name));
    Node *node = graph_->addNode(proto.op_type(), inputs, outputNames);
    node->setName(proto.name());
    for (const onnx::AttributeProto &attr : proto.attribute()) {
      Expected<Attribute> value = convertAttribute(attr);
      CUVIL_TRY(value.status());
      node->setAttr(attr.name(), value.take());
    }
    Expected<std::vector<Value *>> results = adaptToLatestOpset(*graph_, *node, adaptContext_);
    CUVIL_TRY(results.status());
    for (int i = 0; i < outputs; ++i)
      bind(proto.output(i), (*results)[size_t(i)]);
    return Status::success();
  }

  onnx::ModelProto &model_;
  std::string modelDir_;
  const ImportOptions &options_;
  int64_t opset_ = 0;
  std::vector<int64_t> nodeOpsets_; // the opset each node's form follows
  AdaptContext adaptContext_;
  std::unique_ptr<Graph> graph_;
  std::map<std::string, Value *> values_;
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
