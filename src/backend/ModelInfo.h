// Emits `cuvil_model`, the description of the compiled model the runtime
// reads (layout in include/cuvil/runtime/ModelABI.h).
#pragma once

#include "cuvil/backend/Target.h"
#include "cuvil/ir/Graph.h"

#include <llvm/IR/Module.h>

namespace cuvil {

void emitModelInfo(llvm::Module &module, const Graph &graph, const TargetConfig &target,
                   uint64_t arenaBytes, uint64_t weightsBytes,
                   const std::vector<std::string> &kernelCallNames);

} // namespace cuvil
