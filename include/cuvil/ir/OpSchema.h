// What the IR knows about an op: its arity, attributes, shape rule and
// reference semantics. Op definitions (src/ops/) register one schema per op;
// the IR, the verifier and the passes look them up by name.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

#include <fmt/format.h>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace cuvil {

// What a shape rule sees: the node, its input types and any constant inputs.
class InferContext {
public:
  explicit InferContext(const Node &node) : node_(node) {}

  const Node &node() const { return node_; }
  size_t numInputs() const { return node_.numInputs(); }
  bool hasInput(size_t i) const { return node_.hasInput(i); }
  const TensorType &inputType(size_t i) const { return node_.input(i)->type(); }
  const Shape &inputShape(size_t i) const { return inputType(i).shape; }
  DType inputDType(size_t i) const { return inputType(i).dtype; }
  // The input's data when it is a constant, else null.
  const Tensor *constantInput(size_t i) const {
    Value *value = node_.input(i);
    return value && value->isConstant() ? &value->constant() : nullptr;
  }

  // The input's elements as dims when shape inference knows them.
  const std::vector<Dim> *inputDims(size_t i) const {
    Value *value = node_.input(i);
    return value ? value->dimValues() : nullptr;
  }

  // An extent this node computes from data at run time (NonZero's count),
  // as a symbol in [0, max] of the node's graph, named after its first
  // output and `role`. The same symbol on every call for this node, so
  // that re-running inference keeps it; the code the node lowers to writes
  // its value (KernelArg::symbol).
  Dim dataSymbol(std::string_view role, int64_t max) const;

  void setOutput(size_t i, TensorType type) { node_.output(i)->setType(std::move(type)); }
  void setOutputDims(size_t i, std::vector<Dim> dims) {
    node_.output(i)->setDimValues(std::move(dims));
  }

  template <typename... Args>
  Status error(fmt::format_string<Args...> format, Args &&...args) const {
    return Status::error(fmt::format(format, std::forward<Args>(args)...));
  }

private:
  const Node &node_;
};

// Computes output types from input types (and constant inputs when the shape
// depends on data, as for Reshape).
using InferFn = Status (*)(InferContext &);
// Computes outputs from constant inputs; `outputs` arrive allocated with the
// inferred types. Omitted optional inputs are null.
using EvalFn = Status (*)(const Node &, std::span<const Tensor *const> inputs,
                          std::span<Tensor> outputs);

struct AttrSpec {
  std::string_view name;
  AttrKind kind;
  // The value ONNX defines when the attribute is absent; the importer fills
  // it in (fillDefaultAttributes), so that nothing else repeats it.
  std::optional<Attribute> defaultValue = std::nullopt;
  // The node must give it (Cast's `to`, Concat's `axis`): checkArity says
  // so, naming it.
  bool required = false;
};

// An f32 elementwise op that fused kernels can apply: a step of a
// cuvil.ElementwiseChain, and, when unary and finite at zero, the
// activation of a fused Conv or MatMul epilogue. fuse-elementwise,
// fuse-epilogues and layout-nchwc read these facts instead of lists of op
// names; the ops layer maps the op to its kernel function.
struct ElementwiseFacts {
  enum class Arity : uint8_t { Unary, Binary };
  Arity arity = Arity::Unary;
  // f(0) (binary: f(0, 0)) is finite, so the zero padding lanes of blocked
  // tensors and convolution outputs stay finite (a 0 * NaN would leak into
  // real channels).
  bool finiteAtZero = false;
  // Binary: the value that pads a per-channel constant operand to whole
  // channel blocks (0 for Add, 1 for Div); f(0, it) must be finite.
  float constantPadding = 0;
  // Unary: the op's parameters as fused kernels take them, `paramCount` of
  // them: by default the float attributes `paramAttributes` in order (their
  // schema defaults where absent); `params` replaces that for ops whose
  // parameters are inputs (Clip) or not floats (Gelu). nullopt when they are
  // not compile-time constants: the op then stays unfused.
  std::vector<std::string_view> paramAttributes = {};
  std::optional<std::vector<float>> (*params)(const Node &) = nullptr;
  size_t paramCount = 0;
};

struct CpuModel;
// Sets the attributes of a node whose values depend on the target (register
// tiles, scratch budgets), which its shape rule and lowering then read. The
// pass that makes the node calls it (PassUtils' planForTarget).
using PlanFn = Status (*)(Node &, const CpuModel &);

// Types the inputs of a control-flow node's regions from the node's
// operands (and, for a loop body, gives its iteration number the symbol
// the loop counts with); shape-inference then types the regions' nodes
// before the node's own shape rule reads the regions' outputs.
using PrepareRegionsFn = Status (*)(Node &);
// The region that replaces the node when it is known before the regions are
// typed (If with a constant condition), or nullopt.
using SelectRegionFn = std::optional<size_t> (*)(const Node &);

struct OpSchema {
  std::string_view name;
  int minInputs, maxInputs;
  int minOutputs, maxOutputs;
  std::vector<AttrSpec> attributes; // every attribute the op accepts
  InferFn infer;
  EvalFn reference; // null when the op is never folded on the host
  // Result 0 is input 0's bytes under a new shape (Reshape, Squeeze, ...): the
  // memory planner lets them share storage.
  bool isView = false;
  // The reference needs only the inputs' types, not their data (Shape).
  bool foldsFromTypes = false;
  std::optional<ElementwiseFacts> elementwise = std::nullopt;
  PlanFn planForTarget = nullptr;
  // Ops that hold regions: their names (the ONNX graph attributes) in the
  // node's order.
  std::vector<std::string_view> regions = {};
  PrepareRegionsFn prepareRegions = nullptr;
  SelectRegionFn selectRegion = nullptr;

  const AttrSpec *findAttribute(std::string_view attribute) const;
  // The node's input and result counts against the schema's (every shape
  // rule may rely on them); required inputs must be present.
  Status checkArity(const Node &node) const;
};

// Sets every attribute `node` lacks that its schema gives a default.
void fillDefaultAttributes(Node &node);
// The parameters fused kernels take for an elementwise op (see
// ElementwiseFacts::params), or nullopt.
std::optional<std::vector<float>> elementwiseParams(const Node &node, const OpSchema &schema);

// Registry of schemas by op name; filled once by registerAllOps().
class OpRegistry {
public:
  static OpRegistry &instance();
  void add(const OpSchema *schema);
  const OpSchema *find(std::string_view op) const;
  std::vector<std::string_view> names() const;

private:
  std::map<std::string_view, const OpSchema *, std::less<>> schemas_;
};

} // namespace cuvil
