// The LLVM backend: turns a planned graph (every value typed, every
// intermediate given storage by the memory planner) into an LLVM module, an
// object file, and finally a static executable linked with the runtime.
#pragma once

#include "cuvil/backend/Target.h"
#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

#include <string>

namespace cuvil {

enum class EmitKind { Executable, Object, Assembly, LLVMIR };

struct BackendOptions {
  TargetConfig target;
  EmitKind emit = EmitKind::Executable;
  std::string outputPath;
  // Keep intermediate files (model.o, weights.o) next to the output.
  bool keepTemporaries = false;
};

struct BackendStats {
  uint64_t arenaBytes = 0;
  uint64_t weightsBytes = 0;
  size_t kernelCalls = 0;     // kernel invocations in one inference
  size_t specialisations = 0; // distinct specialised kernels generated
  double buildSeconds = 0;
  double optimiseSeconds = 0;
  double codegenSeconds = 0;
  double linkSeconds = 0;
};

Status compileToOutput(const Graph &graph, const BackendOptions &options, BackendStats &stats);

} // namespace cuvil
