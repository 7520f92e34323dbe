// shape-inference: types every value in graph order. Shapes are static, so a
// node whose inputs are all known (Shape of a typed value, arithmetic on
// constants...) is evaluated on the spot when its result is small: later
// shape rules (Reshape, Slice, Expand...) then see constants, as in ONNX's
// data propagation.
#include "PassUtils.h"

#include "cuvil/passes/Passes.h"

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

} // namespace

Status runShapeInference(Graph &graph, PassContext &) {
  std::vector<Node *> nodes;
  for (const auto &node : graph.nodes())
    nodes.push_back(node.get());
  // Contradictions of the model's declared types, all of them at once.
  std::vector<std::string> problems;
  for (Node *node : nodes) {
    CUVIL_TRY(inferNodeTypes(*node));
    for (Value *result : node->outputs()) {
      if (!result->declaredType())
        continue;
      if (std::optional<std::string> problem = contradiction(*result))
        problems.push_back(fmt::format("{}: {}", node->describe(), *problem));
      result->setDeclaredType(std::nullopt); // checked once, in the model's own form
    }
    Expected<bool> folded = foldNode(graph, *node, kPropagateBytes);
    CUVIL_TRY(folded.status());
  }
  if (!problems.empty())
    return Status::error(fmt::format("the model declares types its nodes do not compute:\n  {}",
                                     fmt::join(problems, "\n  ")));
  graph.eraseUnusedConstants();
  return Status::success();
}

} // namespace cuvil
