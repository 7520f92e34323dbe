// If: runs `then_branch` or `else_branch`, regions of the node, as its bool
// condition (one element) says at run time; the results are the branch's
// outputs. Both branches take the node's captures as inputs and must give
// results of the same types. shape-inference replaces an If whose
// condition is known at compile time by the branch it picks (the other one
// is never typed: exporters leave branches that would not type-check for
// the shapes at hand), so only conditions known at run time get here.
// Results whose extents differ between the branches get symbols from data.
#include "ControlFlowCommon.h"

namespace cuvil::ops {
namespace {

Status prepareRegions(Node &node) {
  if (node.numRegions() != 2 || node.regionName(0) != "then_branch" ||
      node.regionName(1) != "else_branch")
    return Status::error("needs the regions then_branch and else_branch");
  for (size_t r = 0; r < 2; ++r)
    if (node.region(r).inputs().size() != node.numCaptures())
      return Status::error(fmt::format("{} takes {} inputs; a branch takes none of its own",
                                       node.regionName(r),
                                       node.region(r).inputs().size() - node.numCaptures()));
  return typeCapturedInputs(node);
}

// The branch a condition known at compile time takes.
std::optional<size_t> selectRegion(const Node &node) {
  const Value *condition = node.input(0);
  if (condition->isConstant() && condition->constant().numElements() == 1)
    return condition->constant().getInt(0) != 0 ? 0 : 1;
  if (const std::vector<Dim> *dims = condition->dimValues();
      dims && dims->size() == 1 && (*dims)[0].isConstant())
    return (*dims)[0].constant() != 0 ? 0 : 1;
  return std::nullopt;
}

// A result's type: the branches' when they agree; where only extents
// differ (an exporter's "empty when there is nothing, else the boxes"), a
// symbol from data bounded by both, which the branch taken sets.
Expected<TensorType> mergedResult(InferContext &ctx, size_t i) {
  const TensorType &a = ctx.node().region(0).outputs()[i]->type(),
                   &b = ctx.node().region(1).outputs()[i]->type();
  if (a == b)
    return a;
  if (a.dtype != b.dtype || a.shape.size() != b.shape.size())
    return ctx.error("result {} is {} in then_branch but {} in else_branch (the branches must "
                     "agree in element type and rank)",
                     i, a.str(), b.str());
  TensorType merged = a;
  for (size_t d = 0; d < a.shape.size(); ++d)
    if (!(a.shape[d] == b.shape[d]))
      merged.shape[d] = ctx.dataSymbol(fmt::format("result{}_dim{}", i, d),
                                       std::max(a.shape[d].max(), b.shape[d].max()));
  return merged;
}

Status infer(InferContext &ctx) {
  const Node &node = ctx.node();
  if (ctx.inputDType(0) != DType::Bool || !ctx.inputType(0).numElements().is(1))
    return ctx.error("the condition must be one bool, not {}", ctx.inputType(0).str());
  for (size_t r = 0; r < 2; ++r)
    if (node.region(r).outputs().size() != node.numOutputs())
      return ctx.error("{} returns {} values for {} results", node.region(r).name(),
                       node.region(r).outputs().size(), node.numOutputs());
  for (size_t i = 0; i < node.numOutputs(); ++i) {
    Expected<TensorType> result = mergedResult(ctx, i);
    CUVIL_TRY(result.status());
    ctx.setOutput(i, *result);
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  auto branch = [&](const Graph &region) {
    return [&]() -> Status {
      CUVIL_TRY(ctx.lowerRegion(region));
      for (size_t i = 0; i < node.numOutputs(); ++i) {
        const Shape &merged = node.output(i)->type().shape,
                    &taken = region.outputs()[i]->type().shape;
        for (size_t d = 0; d < merged.size(); ++d)
          if (!(merged[d] == taken[d]))
            CUVIL_TRY(ctx.assignSymbol(*merged[d].asSymbol(), taken[d]));
        CUVIL_TRY(copyValue(ctx, region.outputs()[i], node.output(i)));
      }
      return Status::success();
    };
  };
  return ctx.emitIf(node.input(0), branch(node.region(0)), branch(node.region(1)));
}

OpSchema schema() {
  OpSchema schema{"If",  1,      1 << 20, 1, 1 << 20, {{"captures", AttrKind::Int, int64_t(0)}},
                  infer, nullptr};
  schema.regions = {"then_branch", "else_branch"};
  schema.prepareRegions = prepareRegions;
  schema.selectRegion = selectRegion;
  return schema;
}

} // namespace

extern const OpDefinition kIfOp = {schema(), lower};

} // namespace cuvil::ops
