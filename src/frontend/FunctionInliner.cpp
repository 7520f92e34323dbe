#include "FunctionInliner.h"

#include "IsolatedShapeInference.h"

#include <fmt/format.h>
#include <map>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>
#include <optional>
#include <string>
#include <utility>

namespace cuvil {
namespace {

// Bodies call bodies (SoftmaxCrossEntropyLoss calls NegativeLogLikelihood-
// Loss); deeper than this is a recursive model-local function.
constexpr int kMaxDepth = 16;

bool isDefaultDomain(const std::string &domain) { return domain.empty() || domain == "ai.onnx"; }

// The opset of the default domain a body imports, if it says.
std::optional<int64_t> bodyOpset(const onnx::FunctionProto &body) {
  for (const auto &import : body.opset_import())
    if (isDefaultDomain(import.domain()))
      return import.version();
  return std::nullopt;
}

// The types ONNX shape inference gives every value it can type (on a copy
// of the model), for bodies built from input types; none where it fails.
std::map<std::string, onnx::TypeProto> valueTypes(const onnx::ModelProto &model) {
  std::map<std::string, onnx::TypeProto> types;
  const onnx::GraphProto &graph = model.graph();
  std::optional<onnx::GraphProto> inferred = inferValueTypes(model);
  const onnx::GraphProto &typed = inferred ? *inferred : graph;
  for (const auto *infos : {&typed.input(), &typed.value_info(), &typed.output()})
    for (const onnx::ValueInfoProto &info : *infos)
      if (info.has_type())
        types[info.name()] = info.type();
  for (const onnx::TensorProto &initializer : graph.initializer()) {
    onnx::TypeProto type;
    type.mutable_tensor_type()->set_elem_type(initializer.data_type());
    for (int64_t dim : initializer.dims())
      type.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(dim);
    types[initializer.name()] = type;
  }
  return types;
}

// Appends `body`'s nodes for a call by `node`: the body's inputs and
// outputs become the node's, its other values get `prefix`, and attributes
// that refer to the node's take their values from the node, else from the
// default in the op's `schema` (null for a model-local function), else are
// omitted, as ONNX specifies.
Status appendBody(const onnx::NodeProto &node, const onnx::FunctionProto &body,
                  const onnx::OpSchema *schema, const std::string &prefix,
                  onnx::GraphProto &graph) {
  if (node.input_size() > body.input_size() || node.output_size() > body.output_size())
    return Status::error(fmt::format("has {} inputs and {} outputs, its function {} and {}",
                                     node.input_size(), node.output_size(), body.input_size(),
                                     body.output_size()));
  std::map<std::string, std::string> names;
  for (int i = 0; i < body.input_size(); ++i)
    names[body.input(i)] = i < node.input_size() ? node.input(i) : ""; // omitted: stays omitted
  for (int i = 0; i < node.output_size(); ++i)
    if (!node.output(i).empty())
      names[body.output(i)] = node.output(i);
  std::map<std::string, const onnx::AttributeProto *> attributes;
  for (const onnx::AttributeProto &attribute : node.attribute())
    attributes[attribute.name()] = &attribute;
  auto rename = [&](const std::string &name) {
    if (name.empty())
      return name;
    auto it = names.find(name);
    return it != names.end() ? it->second : prefix + name;
  };
  for (const onnx::NodeProto &inner : body.node()) {
    onnx::NodeProto *copy = graph.add_node();
    *copy = inner;
    copy->set_name(prefix + (inner.name().empty() ? inner.op_type() : inner.name()));
    for (int i = 0; i < copy->input_size(); ++i)
      copy->set_input(i, rename(inner.input(i)));
    for (int i = 0; i < copy->output_size(); ++i)
      copy->set_output(i, rename(inner.output(i)));
    copy->clear_attribute();
    for (const onnx::AttributeProto &attribute : inner.attribute()) {
      if (attribute.ref_attr_name().empty()) {
        *copy->add_attribute() = attribute;
        continue;
      }
      const onnx::AttributeProto *value = nullptr;
      if (auto it = attributes.find(attribute.ref_attr_name()); it != attributes.end())
        value = it->second;
      else if (schema)
        if (auto it = schema->attributes().find(attribute.ref_attr_name());
            it != schema->attributes().end() &&
            it->second.default_value.type() != onnx::AttributeProto::UNDEFINED)
          value = &it->second.default_value;
      if (!value)
        continue;
      onnx::AttributeProto *resolved = copy->add_attribute();
      *resolved = *value;
      resolved->set_name(attribute.name());
    }
  }
  return Status::success();
}

class Inliner {
public:
  Inliner(onnx::ModelProto &model, int64_t opset,
          const std::function<bool(const onnx::NodeProto &)> &native)
      : model_(model), opset_(opset), native_(native) {
    for (const onnx::FunctionProto &function : model.functions())
      localFunctions_[{function.domain(), function.name()}] = &function;
  }

  Expected<std::vector<int64_t>> run() {
    std::vector<int64_t> opsets(size_t(model_.graph().node_size()), opset_);
    for (int depth = 0;; ++depth) {
      std::vector<int> pending;
      for (int i = 0; i < model_.graph().node_size(); ++i)
        if (expandable(model_.graph().node(i), opsets[size_t(i)]))
          pending.push_back(i);
      if (pending.empty())
        return opsets;
      if (depth == kMaxDepth)
        return Status::error(fmt::format("functions nest deeper than {} levels (a recursive "
                                         "function?) at node '{}' ({})",
                                         kMaxDepth, model_.graph().node(pending[0]).name(),
                                         model_.graph().node(pending[0]).op_type()));
      CUVIL_TRY(expand(pending, opsets));
    }
  }

private:
  const onnx::FunctionProto *localFunction(const onnx::NodeProto &node) const {
    auto it = localFunctions_.find({node.domain(), node.op_type()});
    return it == localFunctions_.end() ? nullptr : it->second;
  }

  const onnx::OpSchema *schema(const onnx::NodeProto &node, int64_t opset) const {
    if (!isDefaultDomain(node.domain()))
      return nullptr;
    return onnx::OpSchemaRegistry::Schema(node.op_type(), int(opset), "");
  }

  bool expandable(const onnx::NodeProto &node, int64_t opset) const {
    if (localFunction(node))
      return true;
    if (native_(node))
      return false;
    const onnx::OpSchema *op = schema(node, opset);
    return op && (op->HasFunction() || op->HasContextDependentFunction());
  }

  // The body of `node`, and the opset its nodes follow.
  Expected<std::pair<onnx::FunctionProto, int64_t>> body(const onnx::NodeProto &node,
                                                         int64_t opset) {
    if (const onnx::FunctionProto *local = localFunction(node))
      return std::pair(*local, bodyOpset(*local).value_or(opset_));
    const onnx::OpSchema *op = schema(node, opset);
    onnx::FunctionProto function;
    if (op->HasFunction()) {
      function = *op->GetFunction();
    } else {
      if (!types_)
        types_ = valueTypes(model_);
      // ONNX's builders read every present input's tensor type without
      // checking it (a null or empty one crashes them): check for them.
      if (node.input_size() < op->min_input() || node.input_size() > op->max_input() ||
          node.output_size() < op->min_output() || node.output_size() > op->max_output())
        return Status::error(fmt::format("node '{}' ({}): has {} inputs and {} results, the "
                                         "op takes {} to {} and {} to {}",
                                         node.name(), node.op_type(), node.input_size(),
                                         node.output_size(), op->min_input(), op->max_input(),
                                         op->min_output(), op->max_output()));
      std::vector<onnx::TypeProto> inputTypes;
      for (const std::string &input : node.input()) {
        auto it = types_->find(input);
        bool known = it != types_->end() && it->second.has_tensor_type() &&
                     it->second.tensor_type().elem_type() != 0;
        if (!input.empty() && !known)
          return Status::error(fmt::format("node '{}' ({}): the type of input '{}' is unknown, "
                                           "which ONNX needs to expand the op",
                                           node.name(), node.op_type(), input));
        inputTypes.push_back(known ? it->second : onnx::TypeProto());
      }
      onnx::FunctionBodyBuildContextImpl context(node, inputTypes);
      bool built = false;
      try {
        built = op->BuildContextDependentFunction(context, function);
      } catch (const std::exception &error) {
        return Status::error(fmt::format("node '{}' ({}): ONNX cannot expand it: {}", node.name(),
                                         node.op_type(), error.what()));
      }
      if (!built)
        return Status::error(fmt::format("node '{}' ({}): ONNX cannot expand it for the types "
                                         "of its inputs",
                                         node.name(), node.op_type()));
    }
    return std::pair(std::move(function), bodyOpset(function).value_or(op->SinceVersion()));
  }

  // Replaces the nodes at `pending` by their bodies, in place in the order.
  Status expand(const std::vector<int> &pending, std::vector<int64_t> &opsets) {
    onnx::GraphProto rewritten;
    std::vector<int64_t> rewrittenOpsets;
    size_t next = 0;
    for (int i = 0; i < model_.graph().node_size(); ++i) {
      const onnx::NodeProto &node = model_.graph().node(i);
      if (next == pending.size() || pending[next] != i) {
        *rewritten.add_node() = node;
        rewrittenOpsets.push_back(opsets[size_t(i)]);
        continue;
      }
      ++next;
      auto expansion = body(node, opsets[size_t(i)]);
      CUVIL_TRY(expansion.status());
      int before = rewritten.node_size();
      // Values inside the body get the node's name as prefix: unique in the
      // graph, and errors inside the body name the node they came from.
      std::string label = !node.name().empty()     ? node.name()
                          : node.output_size() > 0 ? node.output(0)
                                                   : fmt::format("#{}", i);
      std::string prefix = fmt::format("{}/{}.{}/", label, node.op_type(), expansions_++);
      const onnx::OpSchema *op = localFunction(node) ? nullptr : schema(node, opsets[size_t(i)]);
      CUVIL_TRY(appendBody(node, expansion->first, op, prefix, rewritten)
                    .withContext(fmt::format("node '{}' ({})", label, node.op_type())));
      rewrittenOpsets.insert(rewrittenOpsets.end(), size_t(rewritten.node_size() - before),
                             expansion->second);
    }
    model_.mutable_graph()->mutable_node()->Swap(rewritten.mutable_node());
    opsets = std::move(rewrittenOpsets);
    types_.reset(); // the graph has new values
    return Status::success();
  }

  onnx::ModelProto &model_;
  int64_t opset_;
  const std::function<bool(const onnx::NodeProto &)> &native_;
  std::map<std::pair<std::string, std::string>, const onnx::FunctionProto *> localFunctions_;
  std::optional<std::map<std::string, onnx::TypeProto>> types_;
  int expansions_ = 0;
};

} // namespace

Expected<std::vector<int64_t>>
inlineFunctions(onnx::ModelProto &model, int64_t opset,
                const std::function<bool(const onnx::NodeProto &)> &native) {
  return Inliner(model, opset, native).run();
}

} // namespace cuvil
