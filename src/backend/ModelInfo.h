// Emits `cuvil_model`, the description of the compiled model the runtime
// reads (layout in include/cuvil/runtime/ModelABI.h).
#pragma once

#include "ModuleBuilder.h"
#include "cuvil/backend/Target.h"
#include "cuvil/backend/WeightsObject.h"
#include "cuvil/ir/Graph.h"

#include <llvm/IR/Module.h>

namespace cuvil {

void emitModelInfo(llvm::Module &module, const Graph &model, const std::vector<CodePath> &paths,
                   const ModuleBuilder &builder, const TargetConfig &target,
                   const WeightsPlacement &weights);

} // namespace cuvil
