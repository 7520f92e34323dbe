#include "cuvil/lowering/Lowering.h"

#include <fmt/format.h>

namespace cuvil {

LoweringRegistry &LoweringRegistry::instance() {
  static LoweringRegistry registry;
  return registry;
}

Status LoweringContext::callKernel(const KernelRef &kernel, std::vector<KernelArg> args,
                                   int64_t numTasks) {
  CUVIL_TRY(kernel.checkCall(args));
  return emitKernelCall(kernel, std::move(args), numTasks);
}

Status lowerNode(const Node &node, LoweringContext &ctx) {
  LowerFn lower = LoweringRegistry::instance().find(node.op());
  if (!lower)
    return Status::error(fmt::format("{}: no lowering for this op", node.describe()));
  return lower(node, ctx).withContext(node.describe());
}

} // namespace cuvil
