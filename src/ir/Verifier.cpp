#include "cuvil/ir/Verifier.h"

#include "cuvil/ir/OpSchema.h"

#include <algorithm>
#include <unordered_set>

namespace cuvil {
namespace {

Status verifyAttributes(const Node &node, const OpSchema &schema) {
  for (const auto &[name, attr] : node.attributes()) {
    auto spec = std::find_if(schema.attributes.begin(), schema.attributes.end(),
                             [&](const AttrSpec &s) { return s.name == name; });
    if (spec == schema.attributes.end())
      return Status::error(fmt::format("unknown attribute '{}'", name));
    AttrKind kind = attrKind(attr);
    bool emptyList = kind == AttrKind::Ints && std::get<std::vector<int64_t>>(attr).empty();
    bool intForFloat = kind == AttrKind::Int && spec->kind == AttrKind::Float;
    if (kind != spec->kind && !(emptyList && spec->kind == AttrKind::Floats) && !intForFloat)
      return Status::error(fmt::format("attribute '{}' must be {}, not {}", name,
                                       attrKindName(spec->kind), attrKindName(kind)));
  }
  return Status::success();
}

Status verifyTypesAgainstShapeRule(const Node &node, const OpSchema &schema) {
  // Only typed results are checked; re-run the shape rule and put the
  // recorded types back.
  std::vector<TensorType> recorded;
  for (Value *result : node.outputs()) {
    if (!result->hasType())
      return Status::success();
    recorded.push_back(result->type());
  }
  InferContext context(node);
  Status status = schema.infer(context);
  std::vector<TensorType> inferred;
  for (size_t i = 0; i < node.numOutputs(); ++i) {
    inferred.push_back(node.output(i)->type());
    node.output(i)->setType(recorded[i]);
  }
  CUVIL_TRY(status);
  for (size_t i = 0; i < node.numOutputs(); ++i)
    if (recorded[i] != inferred[i])
      return Status::error(fmt::format("result {} is typed {} but the shape rule gives {}", i,
                                       recorded[i].str(), inferred[i].str()));
  return Status::success();
}

Status verifyNode(const Node &node, const std::unordered_set<const Value *> &defined,
                  const VerifyOptions &options) {
  const OpSchema *schema = OpRegistry::instance().find(node.op());
  if (!schema)
    return Status::error("unknown op");
  CUVIL_TRY(schema->checkArity(node));
  bool inputsTyped = true;
  for (Value *input : node.inputs()) {
    if (!input)
      continue;
    if (!defined.count(input))
      return Status::error(fmt::format("uses %{} before its definition", input->name()));
    inputsTyped &= input->hasType();
  }
  for (size_t r = 0; r < node.numRegions(); ++r)
    for (const Value *input : node.region(r).inputs())
      inputsTyped &= input->hasType();
  CUVIL_TRY(verifyAttributes(node, *schema));
  for (Value *result : node.outputs())
    if (options.requireTypes && !result->hasType())
      return Status::error(fmt::format("result %{} has no type", result->name()));
  if (node.numCaptures() > node.numInputs())
    return Status::error(fmt::format("captures {} values but has {} operands", node.numCaptures(),
                                     node.numInputs()));
  for (size_t r = 0; r < node.numRegions(); ++r) {
    const Graph &region = node.region(r);
    if (region.inputs().size() < node.numCaptures())
      return Status::error(
          fmt::format("region '{}' has fewer inputs than the node captures", node.regionName(r)));
    CUVIL_TRY(verifyGraph(region, options)
                  .withContext(fmt::format("in region '{}'", node.regionName(r))));
  }
  if (inputsTyped)
    CUVIL_TRY(verifyTypesAgainstShapeRule(node, *schema));
  return Status::success();
}

} // namespace

Status verifyGraph(const Graph &graph, const VerifyOptions &options) {
  std::unordered_set<const Value *> defined;
  // A region's inputs are typed by its node's shape rule.
  for (const Value *input : graph.inputs()) {
    if (!input->hasType() && (!graph.owner() || options.requireTypes))
      return Status::error(fmt::format("graph input %{} has no type", input->name()));
    defined.insert(input);
  }
  for (const Value *constant : graph.constants())
    defined.insert(constant);
  for (const auto &node : graph.nodes()) {
    CUVIL_TRY(verifyNode(*node, defined, options).withContext(node->describe()));
    for (Value *result : node->outputs())
      defined.insert(result);
  }
  for (const Value *output : graph.outputs())
    if (!defined.count(output))
      return Status::error(fmt::format("graph output %{} is never defined", output->name()));
  return Status::success();
}

} // namespace cuvil
