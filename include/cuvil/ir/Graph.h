// The Cuvil IR: a graph of typed tensor values and the nodes (ops) that
// produce them. Nodes are kept in a topological order; constants are values
// with data and no producer.
#pragma once

#include "cuvil/ir/Attribute.h"
#include "cuvil/ir/Tensor.h"

#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace cuvil {

class Node;
class Graph;

// Where a value lives at run time, decided by the memory planner. A
// region's captured input (and views of it) reads the bytes of the operand
// of the region's node that it stands for: Capture, with the input's index.
enum class StorageSpace : uint8_t { None, Arena, Input, Output, Capture };
struct Storage {
  StorageSpace space = StorageSpace::None;
  uint32_t index = 0;  // graph input/output number for Input/Output, region input for Capture
  uint64_t offset = 0; // bytes from the start of the arena/buffer
  bool operator==(const Storage &) const = default;
};

struct Use {
  Node *node;
  unsigned operand;
};

// The type an ONNX model declares for a value it computes (a graph
// output, a value_info entry): the element type and, when the model gives a
// shape, each dim's extent (nullopt where it names a symbol or gives
// nothing). shape-inference refuses a result that contradicts it.
struct DeclaredType {
  DType dtype;
  std::optional<std::vector<std::optional<int64_t>>> dims;
};

class Value {
public:
  const std::string &name() const { return name_; }
  bool hasType() const { return type_.has_value(); }
  const TensorType &type() const { return *type_; }
  const std::optional<TensorType> &maybeType() const { return type_; }
  void setType(TensorType type) { type_ = std::move(type); }

  Node *producer() const { return producer_; }
  unsigned resultIndex() const { return resultIndex_; }
  bool isConstant() const { return constant_.has_value(); }
  const Tensor &constant() const { return *constant_; }
  // What shape inference knows of the elements of a small integer value
  // that is not a constant: each one a dim (the result of Shape on a
  // symbolic shape, and arithmetic on it). Null when unknown.
  const std::vector<Dim> *dimValues() const { return dimValues_ ? &*dimValues_ : nullptr; }
  void setDimValues(std::optional<std::vector<Dim>> dims) { dimValues_ = std::move(dims); }
  // The data a floating-point graph input must hold at run time (--value);
  // the graph reads a constant of it instead of the input. Null otherwise.
  const Tensor *fixedData() const { return fixedData_ ? &*fixedData_ : nullptr; }
  void setFixedData(Tensor data) { fixedData_ = std::move(data); }
  const std::optional<DeclaredType> &declaredType() const { return declared_; }
  void setDeclaredType(std::optional<DeclaredType> declared) { declared_ = std::move(declared); }
  bool isGraphInput() const { return graphInput_; }
  bool isGraphOutput() const { return graphOutput_; }

  const std::vector<Use> &uses() const { return uses_; }
  bool hasOneUse() const { return uses_.size() == 1 && !graphOutput_; }

  const Storage &storage() const { return storage_; }
  void setStorage(Storage storage) { storage_ = storage; }

private:
  friend class Graph;
  friend class Node;
  std::string name_;
  std::optional<TensorType> type_;
  std::optional<Tensor> constant_;
  std::optional<std::vector<Dim>> dimValues_;
  std::optional<Tensor> fixedData_;
  std::optional<DeclaredType> declared_;
  Node *producer_ = nullptr;
  unsigned resultIndex_ = 0;
  bool graphInput_ = false;
  bool graphOutput_ = false;
  std::vector<Use> uses_;
  Storage storage_;
};

class Node {
public:
  const std::string &op() const { return op_; }
  const std::string &name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }
  // "Conv node '/layer1/conv1'" (or the first output's name when unnamed).
  std::string describe() const;

  size_t numInputs() const { return inputs_.size(); }
  // Null for an omitted optional input.
  Value *input(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  bool hasInput(size_t i) const { return input(i) != nullptr; }
  const std::vector<Value *> &inputs() const { return inputs_; }
  void setInput(size_t i, Value *value);
  void addInput(Value *value);
  void removeTrailingInputs(size_t keep); // drops inputs [keep, end)

  size_t numOutputs() const { return outputs_.size(); }
  Value *output(size_t i = 0) const { return outputs_[i]; }
  const std::vector<Value *> &outputs() const { return outputs_; }

  const std::map<std::string, Attribute> &attributes() const { return attributes_; }
  bool hasAttr(const std::string &name) const { return attributes_.count(name) != 0; }
  const Attribute *findAttr(const std::string &name) const;
  void setAttr(const std::string &name, Attribute value) { attributes_[name] = std::move(value); }
  void removeAttr(const std::string &name) { attributes_.erase(name); }

  // Typed getters; the verifier has already checked kinds against the schema.
  // Without a fallback: the attribute, else the default the op's schema
  // declares (the one home of ONNX defaults, which the importer fills in).
  int64_t getInt(const std::string &name) const;
  float getFloat(const std::string &name) const;
  std::string getString(const std::string &name) const;
  int64_t getInt(const std::string &name, int64_t fallback) const;
  float getFloat(const std::string &name, float fallback) const;
  std::string getString(const std::string &name, const std::string &fallback) const;
  std::vector<int64_t> getInts(const std::string &name, std::vector<int64_t> fallback = {}) const;
  std::vector<float> getFloats(const std::string &name, std::vector<float> fallback = {}) const;
  std::vector<std::string> getStrings(const std::string &name) const;

  Graph &graph() const { return *graph_; }

  // The graphs a control-flow node runs (If's branches, Loop's and Scan's
  // body), by their ONNX attribute names. A region is isolated from above:
  // its nodes use only its own inputs, constants and results. The values of
  // the enclosing graph it reads are the node's last `captures` operands,
  // and the region's last `captures` inputs stand for them.
  size_t numRegions() const { return regions_.size(); }
  Graph &region(size_t i) const { return *regions_[i].graph; }
  const std::string &regionName(size_t i) const { return regions_[i].name; }
  Graph &addRegion(const std::string &name);
  // Operands (and inputs of every region) that are captured values.
  size_t numCaptures() const { return size_t(getInt("captures", 0)); }
  // Appends `value` to the captures: an operand of the node and an input of
  // every region, typed like it; returns the inputs in region order.
  std::vector<Value *> addCapture(Value *value, const std::string &name);

  Node();
  ~Node();

private:
  friend class Graph;
  struct Region {
    std::string name;
    std::unique_ptr<Graph> graph;
  };
  static void eraseUse(Value *value, Node *node, unsigned operand);
  Graph *graph_ = nullptr;
  std::vector<Region> regions_;
  std::string op_;
  std::string name_;
  std::vector<Value *> inputs_;
  std::vector<Value *> outputs_;
  std::map<std::string, Attribute> attributes_;
  std::list<std::unique_ptr<Node>>::iterator position_;
};

class Graph {
public:
  using NodeList = std::list<std::unique_ptr<Node>>;

  explicit Graph(std::string name = "main") : name_(std::move(name)) {}
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  const std::string &name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }
  // The node whose region this graph is; null for a model's graph.
  Node *owner() const { return owner_; }

  // The symbols its dims are written in (registered in the process's
  // SymbolTable), by name; names are unique within the graph and the
  // graphs enclosing it, whose symbols a region's dims may use too. Input
  // symbols come first, those computed from data after them.
  SymbolId addSymbol(SymbolInfo info);
  const std::vector<SymbolId> &symbols() const { return symbols_; }
  // By name, in this graph or an enclosing one.
  std::optional<SymbolId> findSymbol(std::string_view name) const;

  // An untyped input (nullopt) is a region's, typed by its node's shape rule.
  Value *addInput(const std::string &name, std::optional<TensorType> type);
  Value *addConstant(const std::string &name, Tensor tensor);
  // Graph outputs keep their ONNX names even when a pass replaces the value
  // that produces them (the runtime names output files after them).
  void addOutput(Value *value, std::string name = {});
  void setOutput(size_t i, Value *value);
  const std::string &outputName(size_t i) const { return outputNames_[i]; }

  // Creates a node with `numOutputs` fresh untyped results named after
  // `outputNames` (uniqued) and inserts it before `before` (end when null).
  Node *addNode(const std::string &op, const std::vector<Value *> &inputs,
                const std::vector<std::string> &outputNames, Node *before = nullptr);
  // Appends a fresh untyped result named after `name` (uniqued) to `node`:
  // a rewrite materialising an optional result the node's lowering needs.
  Value *addResult(Node *node, const std::string &name);
  void eraseNode(Node *node); // its results must be unused
  void moveBefore(Node *node, Node *before);

  void replaceAllUsesWith(Value *from, Value *to);
  // Drops constants no node or output uses any more.
  void eraseUnusedConstants();

  const NodeList &nodes() const { return nodes_; }
  const std::vector<Value *> &inputs() const { return inputs_; }
  const std::vector<Value *> &outputs() const { return outputs_; }
  const std::vector<Value *> &constants() const { return constants_; }
  Value *findValue(std::string_view name) const;

  std::string uniqueName(std::string_view base) const;

private:
  friend class Node;
  Value *createValue(const std::string &name);

  std::string name_;
  Node *owner_ = nullptr;
  std::vector<SymbolId> symbols_;
  NodeList nodes_;
  std::vector<std::unique_ptr<Value>> values_;
  std::vector<Value *> inputs_;
  std::vector<Value *> outputs_;
  std::vector<std::string> outputNames_;
  std::vector<Value *> constants_;
  std::map<std::string, Value *, std::less<>> byName_;
};

} // namespace cuvil
