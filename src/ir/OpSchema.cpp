#include "cuvil/ir/OpSchema.h"

#include "cuvil/ir/Graph.h"

#include <cassert>

namespace cuvil {

OpRegistry &OpRegistry::instance() {
  static OpRegistry registry;
  return registry;
}

void OpRegistry::add(const OpSchema *schema) {
  bool inserted = schemas_.emplace(schema->name, schema).second;
  assert(inserted && "op registered twice");
  (void)inserted;
}

const OpSchema *OpRegistry::find(std::string_view op) const {
  auto it = schemas_.find(op);
  return it == schemas_.end() ? nullptr : it->second;
}

std::vector<std::string_view> OpRegistry::names() const {
  std::vector<std::string_view> result;
  for (const auto &entry : schemas_)
    result.push_back(entry.first);
  return result;
}

Dim InferContext::dataSymbol(std::string_view role, int64_t max) const {
  Graph &graph = node_.graph();
  const std::string &owner = node_.output(0)->name();
  std::string stem = symbolNameFrom(owner + "_" + std::string(role)), name = stem;
  for (int suffix = 1;; ++suffix, name = stem + "_" + std::to_string(suffix)) {
    std::optional<SymbolId> known = graph.findSymbol(name);
    if (!known)
      break;
    const SymbolInfo &info = SymbolTable::global().info(*known);
    if (info.fromData && (info.owner.empty() || info.owner == owner))
      return Dim::symbol(*known);
  }
  return Dim::symbol(graph.addSymbol(
      {.name = name, .min = 0, .opt = max, .max = max, .fromData = true, .owner = owner}));
}

Status OpSchema::checkArity(const Node &node) const {
  int inputs = int(node.numInputs()), outputs = int(node.numOutputs());
  if (inputs < minInputs || inputs > maxInputs)
    return Status::error(
        minInputs == maxInputs
            ? fmt::format("takes {} inputs, has {}", minInputs, inputs)
            : fmt::format("takes {} to {} inputs, has {}", minInputs, maxInputs, inputs));
  if (outputs < minOutputs || outputs > maxOutputs)
    return Status::error(
        minOutputs == maxOutputs
            ? fmt::format("returns {} results, has {}", minOutputs, outputs)
            : fmt::format("returns {} to {} results, has {}", minOutputs, maxOutputs, outputs));
  for (int i = 0; i < minInputs; ++i)
    if (!node.hasInput(size_t(i)))
      return Status::error(fmt::format("input {} is required", i));
  for (const AttrSpec &spec : attributes)
    if (spec.required && !node.hasAttr(std::string(spec.name)))
      return Status::error(fmt::format("attribute '{}' is required", spec.name));
  return Status::success();
}

const AttrSpec *OpSchema::findAttribute(std::string_view attribute) const {
  for (const AttrSpec &spec : attributes)
    if (spec.name == attribute)
      return &spec;
  return nullptr;
}

void fillDefaultAttributes(Node &node) {
  const OpSchema *schema = OpRegistry::instance().find(node.op());
  if (!schema)
    return;
  for (const AttrSpec &spec : schema->attributes)
    if (spec.defaultValue && !node.hasAttr(std::string(spec.name)))
      node.setAttr(std::string(spec.name), *spec.defaultValue);
}

std::optional<std::vector<float>> elementwiseParams(const Node &node, const OpSchema &schema) {
  if (!schema.elementwise)
    return std::nullopt;
  const ElementwiseFacts &facts = *schema.elementwise;
  if (facts.params)
    return facts.params(node);
  std::vector<float> params;
  for (std::string_view name : facts.paramAttributes) {
    const AttrSpec *spec = schema.findAttribute(name);
    float fallback = spec && spec->defaultValue ? std::get<float>(*spec->defaultValue) : 0.0f;
    params.push_back(node.getFloat(std::string(name), fallback));
  }
  return params;
}

} // namespace cuvil
