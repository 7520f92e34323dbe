#include "cuvil/lowering/Lowering.h"

#include <fmt/format.h>

namespace cuvil {

LoweringRegistry &LoweringRegistry::instance() {
  static LoweringRegistry registry;
  return registry;
}

Status LoweringContext::callKernel(const KernelRef &kernel, std::vector<KernelArg> args,
                                   const Dim &numTasks, const Dim &flops) {
  CUVIL_TRY(kernel.checkCall(args));
  return emitKernelCall(kernel, std::move(args), numTasks, flops);
}

DotProducts LoweringRegistry::dotProducts(const Node &node) const {
  auto it = lowerings_.find(node.op());
  return it == lowerings_.end() || !it->second.dotProducts ? DotProducts{}
                                                           : it->second.dotProducts(node);
}

namespace {

// Whether every result is a small integer tensor whose elements shape
// inference knows as dims (a shape computed from symbolic dims): those are
// stored from the dims, whatever the op.
bool resultsAreDims(const Node &node) {
  for (const Value *result : node.outputs()) {
    const std::vector<Dim> *dims = result->dimValues();
    DType dtype = result->type().dtype;
    if (!dims || (dtype != DType::I64 && dtype != DType::I32) || !result->type().isStatic() ||
        int64_t(dims->size()) != result->type().numElements().constant())
      return false;
  }
  return node.numOutputs() > 0;
}

} // namespace

Status lowerNode(const Node &node, LoweringContext &ctx) {
  if (resultsAreDims(node)) {
    for (const Value *result : node.outputs())
      CUVIL_TRY(ctx.storeDims(result, *result->dimValues()).withContext(node.describe()));
    return Status::success();
  }
  LowerFn lower = LoweringRegistry::instance().find(node.op());
  if (!lower)
    return Status::error(fmt::format("{}: no lowering for this op", node.describe()));
  return lower(node, ctx).withContext(node.describe());
}

} // namespace cuvil
