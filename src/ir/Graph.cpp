#include "cuvil/ir/Graph.h"

#include "cuvil/ir/OpSchema.h"

#include <algorithm>
#include <cassert>
#include <fmt/format.h>

namespace cuvil {

const char *attrKindName(AttrKind kind) {
  static const char *const names[] = {"int",    "float",   "string", "ints",
                                      "floats", "strings", "tensor"};
  return names[size_t(kind)];
}

// --- Node ---

Node::Node() = default;
Node::~Node() = default;

Graph &Node::addRegion(const std::string &name) {
  auto graph = std::make_unique<Graph>(name);
  graph->owner_ = this;
  regions_.push_back({name, std::move(graph)});
  return *regions_.back().graph;
}

std::vector<Value *> Node::addCapture(Value *value, const std::string &name) {
  std::vector<Value *> inputs;
  for (Region &region : regions_)
    inputs.push_back(region.graph->addInput(region.graph->uniqueName(name), value->maybeType()));
  addInput(value);
  setAttr("captures", int64_t(numCaptures() + 1));
  return inputs;
}

std::string Node::describe() const {
  std::string label = !name_.empty() ? name_ : (outputs_.empty() ? "?" : outputs_[0]->name());
  return fmt::format("{} node '{}'", op_, label);
}

void Node::eraseUse(Value *value, Node *node, unsigned operand) {
  auto &uses = value->uses_;
  auto it = std::find_if(uses.begin(), uses.end(), [&](const Use &use) {
    return use.node == node && use.operand == operand;
  });
  assert(it != uses.end());
  uses.erase(it);
}

void Node::setInput(size_t i, Value *value) {
  if (i >= inputs_.size())
    inputs_.resize(i + 1, nullptr);
  if (inputs_[i])
    eraseUse(inputs_[i], this, unsigned(i));
  inputs_[i] = value;
  if (value)
    value->uses_.push_back({this, unsigned(i)});
}

void Node::addInput(Value *value) { setInput(inputs_.size(), value); }

void Node::removeTrailingInputs(size_t keep) {
  for (size_t i = keep; i < inputs_.size(); ++i)
    if (inputs_[i])
      eraseUse(inputs_[i], this, unsigned(i));
  if (keep < inputs_.size())
    inputs_.resize(keep);
}

const Attribute *Node::findAttr(const std::string &name) const {
  auto it = attributes_.find(name);
  return it == attributes_.end() ? nullptr : &it->second;
}

// The default op's schema declares for attribute `name`.
static const Attribute &schemaDefault(const std::string &op, const std::string &name) {
  const OpSchema *schema = OpRegistry::instance().find(op);
  const AttrSpec *spec = schema ? schema->findAttribute(name) : nullptr;
  assert(spec && spec->defaultValue && "attribute without a declared default");
  return *spec->defaultValue;
}

int64_t Node::getInt(const std::string &name) const {
  const Attribute *attr = findAttr(name);
  return attr ? getInt(name, 0) : std::get<int64_t>(schemaDefault(op_, name));
}

float Node::getFloat(const std::string &name) const {
  const Attribute *attr = findAttr(name);
  return attr ? getFloat(name, 0) : std::get<float>(schemaDefault(op_, name));
}

std::string Node::getString(const std::string &name) const {
  const Attribute *attr = findAttr(name);
  return attr ? std::get<std::string>(*attr) : std::get<std::string>(schemaDefault(op_, name));
}

int64_t Node::getInt(const std::string &name, int64_t fallback) const {
  const Attribute *attr = findAttr(name);
  if (!attr)
    return fallback;
  if (auto *f = std::get_if<float>(attr))
    return int64_t(*f);
  return std::get<int64_t>(*attr);
}

float Node::getFloat(const std::string &name, float fallback) const {
  const Attribute *attr = findAttr(name);
  if (!attr)
    return fallback;
  if (auto *i = std::get_if<int64_t>(attr))
    return float(*i);
  return std::get<float>(*attr);
}

std::string Node::getString(const std::string &name, const std::string &fallback) const {
  const Attribute *attr = findAttr(name);
  return attr ? std::get<std::string>(*attr) : fallback;
}

std::vector<int64_t> Node::getInts(const std::string &name, std::vector<int64_t> fallback) const {
  const Attribute *attr = findAttr(name);
  return attr ? std::get<std::vector<int64_t>>(*attr) : fallback;
}

std::vector<float> Node::getFloats(const std::string &name, std::vector<float> fallback) const {
  const Attribute *attr = findAttr(name);
  if (!attr)
    return fallback;
  // The textual form cannot tell an empty float list from an empty int list.
  if (auto *ints = std::get_if<std::vector<int64_t>>(attr))
    return std::vector<float>(ints->begin(), ints->end());
  return std::get<std::vector<float>>(*attr);
}

std::vector<std::string> Node::getStrings(const std::string &name) const {
  const Attribute *attr = findAttr(name);
  if (!attr || std::holds_alternative<std::vector<int64_t>>(*attr)) // an empty list
    return {};
  return std::get<std::vector<std::string>>(*attr);
}

// --- Graph ---

Value *Graph::createValue(const std::string &name) {
  assert(!byName_.count(name) && "value names are unique");
  values_.push_back(std::make_unique<Value>());
  Value *value = values_.back().get();
  value->name_ = name;
  byName_.emplace(name, value);
  return value;
}

std::string Graph::uniqueName(std::string_view base) const {
  std::string stem = base.empty() ? std::string("t") : std::string(base);
  if (!byName_.count(stem))
    return stem;
  for (size_t suffix = 1;; ++suffix) {
    std::string candidate = fmt::format("{}.{}", stem, suffix);
    if (!byName_.count(candidate))
      return candidate;
  }
}

Value *Graph::findValue(std::string_view name) const {
  auto it = byName_.find(name);
  return it == byName_.end() ? nullptr : it->second;
}

SymbolId Graph::addSymbol(SymbolInfo info) {
  assert(!findSymbol(info.name) && "symbol names are unique within a graph");
  // Input symbols stay before those computed from data (CodePath relies on it).
  bool fromData = info.fromData;
  SymbolId id = SymbolTable::global().add(std::move(info));
  auto firstFromData = std::find_if(symbols_.begin(), symbols_.end(), [](SymbolId symbol) {
    return SymbolTable::global().info(symbol).fromData;
  });
  symbols_.insert(fromData ? symbols_.end() : firstFromData, id);
  return id;
}

std::optional<SymbolId> Graph::findSymbol(std::string_view name) const {
  for (SymbolId id : symbols_)
    if (SymbolTable::global().info(id).name == name)
      return id;
  return owner_ ? owner_->graph().findSymbol(name) : std::nullopt;
}

Value *Graph::addInput(const std::string &name, std::optional<TensorType> type) {
  Value *value = createValue(name);
  value->type_ = std::move(type);
  value->graphInput_ = true;
  inputs_.push_back(value);
  return value;
}

Value *Graph::addConstant(const std::string &name, Tensor tensor) {
  Value *value = createValue(uniqueName(name));
  value->type_ = tensor.type();
  value->constant_ = std::move(tensor);
  constants_.push_back(value);
  return value;
}

void Graph::addOutput(Value *value, std::string name) {
  value->graphOutput_ = true;
  outputs_.push_back(value);
  outputNames_.push_back(name.empty() ? value->name_ : std::move(name));
}

void Graph::setOutput(size_t i, Value *value) {
  Value *old = outputs_[i];
  outputs_[i] = value;
  old->graphOutput_ = std::count(outputs_.begin(), outputs_.end(), old) != 0;
  value->graphOutput_ = true;
}

Node *Graph::addNode(const std::string &op, const std::vector<Value *> &inputs,
                     const std::vector<std::string> &outputNames, Node *before) {
  auto owned = std::make_unique<Node>();
  Node *node = owned.get();
  node->graph_ = this;
  node->op_ = op;
  for (Value *input : inputs)
    node->addInput(input);
  for (size_t i = 0; i < outputNames.size(); ++i) {
    Value *result = createValue(uniqueName(outputNames[i]));
    result->producer_ = node;
    result->resultIndex_ = unsigned(i);
    node->outputs_.push_back(result);
  }
  auto where = before ? before->position_ : nodes_.end();
  node->position_ = nodes_.insert(where, std::move(owned));
  return node;
}

Value *Graph::addResult(Node *node, const std::string &name) {
  Value *result = createValue(uniqueName(name));
  result->producer_ = node;
  result->resultIndex_ = unsigned(node->outputs_.size());
  node->outputs_.push_back(result);
  return result;
}

void Graph::eraseNode(Node *node) {
  for (Value *result : node->outputs_) {
    assert(result->uses_.empty() && !result->graphOutput_ && "erasing a node whose result is used");
    byName_.erase(result->name_);
    result->producer_ = nullptr;
  }
  node->removeTrailingInputs(0);
  nodes_.erase(node->position_);
}

void Graph::moveBefore(Node *node, Node *before) {
  nodes_.splice(before->position_, nodes_, node->position_);
}

void Graph::replaceAllUsesWith(Value *from, Value *to) {
  assert(from != to);
  std::vector<Use> uses = from->uses_;
  for (const Use &use : uses)
    use.node->setInput(use.operand, to);
  for (size_t i = 0; i < outputs_.size(); ++i)
    if (outputs_[i] == from)
      setOutput(i, to);
}

void Graph::eraseUnusedConstants() {
  std::erase_if(constants_, [&](Value *value) {
    if (!value->uses_.empty() || value->graphOutput_)
      return false;
    byName_.erase(value->name_);
    value->constant_.reset(); // frees the data now, not at graph destruction
    return true;
  });
}

} // namespace cuvil
