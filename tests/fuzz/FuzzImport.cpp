// libFuzzer target: bytes -> ModelProto -> IR -> the whole pass pipeline,
// stopping before code generation. Any input must end in a Status (an
// error is fine); a crash, a sanitizer report or a leak is a finding.
//   build-fuzz/tests/fuzz/fuzz_import -max_total_time=600 tests/fuzz/corpus/models
#include "cuvil/backend/Target.h"
#include "cuvil/frontend/OnnxImporter.h"
#include "cuvil/ops/AllOps.h"
#include "cuvil/passes/Pipeline.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace cuvil;
  static bool registered = (registerAllOps(), true);
  (void)registered;
  static const TargetConfig target = *resolveTarget("x86_64-linux", "");
  // External data resolves against a directory that holds nothing.
  Expected<std::unique_ptr<Graph>> graph = importOnnxModelBytes(
      std::string_view(reinterpret_cast<const char *>(data), size), "/nonexistent", {});
  if (!graph)
    return 0;
  std::vector<const PassInfo *> passes;
  for (const PassInfo &pass : defaultPipeline())
    passes.push_back(&pass);
  PassContext context;
  context.cpu = target.cpuModel();
  PipelineOptions quiet;
  (void)runPasses(**graph, passes, context, quiet);
  return 0;
}
