// shape-inference: types every value in graph order. Shapes are static, so a
// node whose inputs are all known (Shape of a typed value, arithmetic on
// constants...) is evaluated on the spot when its result is small: later
// shape rules (Reshape, Slice, Expand...) then see constants, as in ONNX's
// data propagation. A control-flow node's regions are typed from its
// operands before its own shape rule reads their outputs; one whose op
// knows the region the run takes (If with a constant condition) is
// replaced by a copy of that region first, so that the other region, which
// need not even type-check, is never typed.
#include "PassUtils.h"

#include "cuvil/ir/Inline.h"
#include "cuvil/passes/Passes.h"

#include <algorithm>
#include <fmt/format.h>

namespace cuvil {
namespace {
// Results up to this size are folded while inferring; larger constant
// subgraphs are left to constant-folding.
constexpr size_t kPropagateBytes = 4096;

// What is wrong with `result`'s inferred type against the type the model
// declares for it, if anything. A symbolic dim against a declared extent
// is not a contradiction (the range may include it).
std::optional<std::string> contradiction(const Value &result) {
  const DeclaredType &declared = *result.declaredType();
  const TensorType &type = result.type();
  bool rankDiffers = declared.dims && declared.dims->size() != type.shape.size();
  bool dimDiffers = false;
  for (size_t d = 0; declared.dims && !rankDiffers && d < type.shape.size(); ++d)
    dimDiffers |= (*declared.dims)[d] && type.shape[d].isConstant() &&
                  type.shape[d].constant() != *(*declared.dims)[d];
  if (declared.dtype == type.dtype && !rankDiffers && !dimDiffers)
    return std::nullopt;
  std::vector<std::string> dims;
  for (const std::optional<int64_t> &dim :
       declared.dims.value_or(std::vector<std::optional<int64_t>>{}))
    dims.push_back(dim ? std::to_string(*dim) : "?");
  return fmt::format("result '{}' is {}, but the model declares {}{}", result.name(), type.str(),
                     dtypeName(declared.dtype),
                     declared.dims ? fmt::format("[{}]", fmt::join(dims, ",")) : "");
}

// The nodes of `graph` strictly between `after` (null: the start) and
// `before` (null: the end), in order.
std::vector<Node *> nodesBetween(const Graph &graph, const Node *after, const Node *before) {
  std::vector<Node *> nodes;
  bool inside = after == nullptr;
  for (const auto &node : graph.nodes()) {
    if (node.get() == before)
      break;
    if (inside)
      nodes.push_back(node.get());
    inside |= node.get() == after;
  }
  return nodes;
}

class ShapeInference {
public:
  ShapeInference(Graph &graph, PassContext &context) : graph_(graph), context_(context) {}

  Status run() {
    readFixedInputsAsConstants();
    std::vector<Node *> nodes;
    for (const auto &node : graph_.nodes())
      nodes.push_back(node.get());
    CUVIL_TRY(inferNodes(nodes));
    if (!failures_.empty())
      return Status::error(failures_.size() == 1
                               ? failures_[0]
                               : fmt::format("{} nodes fail:\n  {}", failures_.size(),
                                             fmt::join(failures_, "\n  ")));
    if (!problems_.empty())
      return Status::error(fmt::format("the model declares types its nodes do not compute:\n  {}",
                                       fmt::join(problems_, "\n  ")));
    graph_.eraseUnusedConstants();
    return Status::success();
  }

private:
  // An input whose every element is known (--value) is that constant to
  // the nodes reading it, which then fold like any constant computation
  // (a float Range's bounds, a Loop's trip count through casts); the run
  // still checks its data against the values.
  void readFixedInputsAsConstants() {
    for (Value *input : graph_.inputs()) {
      const std::vector<Dim> *dims = input->dimValues();
      if (!dims || !isStatic(*dims) || !input->hasType() || !input->type().isStatic() ||
          input->uses().empty())
        continue;
      const TensorType &type = input->type();
      Value *constant = graph_.addConstant(
          input->name() + ".value", Tensor::fromInt64s(staticDims(*dims), type.shape, type.dtype));
      graph_.replaceAllUsesWith(input, constant);
    }
  }

  Status inferNodes(const std::vector<Node *> &nodes) {
    for (Node *node : nodes) {
      // A node that reads a failed node's results is left untyped: its error
      // would only repeat that one. The others go on, so that every node
      // that fails is reported at once.
      if (!failures_.empty() && std::any_of(node->inputs().begin(), node->inputs().end(),
                                            [](const Value *in) { return in && !in->hasType(); }))
        continue;
      if (node->numRegions() != 0) {
        Expected<bool> inlined = inferRegions(*node);
        if (!inlined)
          failures_.push_back(inlined.status().message());
        if (!inlined || *inlined)
          continue;
      }
      if (Status typed = inferNodeTypes(*node); !typed) {
        failures_.push_back(typed.message());
        continue;
      }
      for (Value *result : node->outputs()) {
        if (!result->declaredType())
          continue;
        if (std::optional<std::string> problem = contradiction(*result))
          problems_.push_back(fmt::format("{}: {}", node->describe(), *problem));
        result->setDeclaredType(std::nullopt); // checked once, in the model's own form
      }
      // A dequantized value is data, never a shape: it stays for fuse-qdq
      // to see the integer weights (constant-folding folds what it leaves).
      if (node->op() == "DequantizeLinear")
        continue;
      Expected<bool> folded = foldNode(graph_, *node, kPropagateBytes);
      CUVIL_TRY(folded.status());
    }
    return Status::success();
  }

  // Types a control-flow node's regions from its operands, or, when its op
  // knows the region the run takes already (If with a constant condition),
  // replaces the node by a copy of that region and types the copy: true.
  Expected<bool> inferRegions(Node &node) {
    const OpSchema *schema = OpRegistry::instance().find(node.op());
    if (!schema || !schema->prepareRegions)
      return Status::error(fmt::format("{}: the op takes no regions", node.describe()));
    CUVIL_TRY(schema->checkArity(node).withContext(node.describe()));
    if (std::optional<size_t> taken =
            schema->selectRegion ? schema->selectRegion(node) : std::nullopt) {
      CUVIL_TRY(inlineRegionOf(node, *taken));
      return true;
    }
    CUVIL_TRY(schema->prepareRegions(node).withContext(node.describe()));
    for (size_t r = 0; r < node.numRegions(); ++r)
      CUVIL_TRY(
          ShapeInference(node.region(r), context_)
              .run()
              .withContext(fmt::format("{}, region '{}'", node.describe(), node.regionName(r))));
    return false;
  }

  Status inlineRegionOf(Node &node, size_t region) {
    const Graph &taken = node.region(region);
    size_t captures = node.numCaptures();
    if (taken.inputs().size() != captures)
      return Status::error(fmt::format("{}: its region '{}' takes inputs of its own",
                                       node.describe(), node.regionName(region)));
    if (taken.outputs().size() != node.numOutputs())
      return Status::error(fmt::format("{}: region '{}' returns {} values for {} results",
                                       node.describe(), node.regionName(region),
                                       taken.outputs().size(), node.numOutputs()));
    Node *previous = nullptr, *next = nullptr;
    for (auto it = graph_.nodes().begin(); it != graph_.nodes().end(); ++it)
      if (it->get() == &node) {
        next = std::next(it) == graph_.nodes().end() ? nullptr : std::next(it)->get();
        break;
      } else {
        previous = it->get();
      }
    std::vector<Value *> operands(node.inputs().end() - std::ptrdiff_t(captures),
                                  node.inputs().end());
    std::vector<Value *> results = inlineRegion(taken, graph_, &node, operands);
    for (size_t i = 0; i < results.size(); ++i)
      graph_.replaceAllUsesWith(node.output(i), results[i]);
    graph_.eraseNode(&node);
    return inferNodes(nodesBetween(graph_, previous, next));
  }

  Graph &graph_;
  PassContext &context_;
  // Contradictions of the model's declared types, all of them at once.
  std::vector<std::string> problems_;
  // Nodes whose shape rule refused them.
  std::vector<std::string> failures_;
};

} // namespace

Status runShapeInference(Graph &graph, PassContext &context) {
  return ShapeInference(graph, context).run();
}

} // namespace cuvil
