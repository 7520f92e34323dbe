// Links model objects with the embedded runtime into a static executable,
// and the tool runner the library linker shares.
#pragma once

#include "EmbeddedFiles.h"
#include "cuvil/backend/Target.h"
#include "cuvil/support/Status.h"

#include <string>
#include <string_view>
#include <vector>

namespace cuvil {

// Runs clang++ (CUVIL_CLANG overrides the path found at build time) with
// lld; `workDir` receives the runtime archive.
Status linkExecutable(const TargetConfig &target, const std::vector<std::string> &objects,
                      const std::string &workDir, const std::string &output);

// The tool `environment` names (when set) or `fallback`: CUVIL_CLANG, ...
std::string toolPath(const char *environment, const char *fallback);

// Runs args[0] with args, its output logged to `workDir`/`log`; a failure
// is an error naming `what`, the command and its output.
Status runTool(const std::vector<std::string> &args, const std::string &workDir,
               const std::string &log, const std::string &what);

// Writes the embedded file `kind` of `triple`'s architecture at `path`.
Status writeEmbedded(std::string_view triple, EmbeddedKind kind, const std::string &path);

} // namespace cuvil
