// Links model objects with the embedded runtime into a static executable.
#pragma once

#include "cuvil/backend/Target.h"
#include "cuvil/support/Status.h"

#include <string>
#include <vector>

namespace cuvil {

// Runs clang++ (CUVIL_CLANG overrides the path found at build time) with
// lld; `workDir` receives the runtime archive.
Status linkExecutable(const TargetConfig &target, const std::vector<std::string> &objects,
                      const std::string &workDir, const std::string &output);

} // namespace cuvil
