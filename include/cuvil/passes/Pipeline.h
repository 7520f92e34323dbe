// The compilation pipeline: an ordered table of passes (see Pipeline.cpp).
#pragma once

#include "cuvil/passes/Pass.h"

#include <ostream>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace cuvil {

// Every pass, in the order the default pipeline runs them.
std::span<const PassInfo> defaultPipeline();
// Every registered pass (the pipeline's and optional ones), by name.
const PassInfo *findPass(std::string_view name);
std::vector<std::string_view> passNames();

struct PipelineOptions {
  std::set<std::string, std::less<>> printAfter; // pass names
  bool printAfterAll = false;
  std::ostream *printStream = nullptr; // where --print-after output goes
  bool verifyEach = true;              // run the verifier after every pass
};

// Runs the passes in order, verifying and printing as asked. A failing pass or
// verification names the pass.
Status runPasses(Graph &graph, std::span<const PassInfo *const> passes, PassContext &context,
                 const PipelineOptions &options);

} // namespace cuvil
