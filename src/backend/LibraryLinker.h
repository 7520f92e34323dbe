// A model as a library: its objects and the embedded library runtime
// (src/runtime/EmbedApi.cpp) linked into one object whose only global
// symbols are the model's C API, named after it (`NAME_create`), archived as
// libNAME.a or linked as libNAME.so, with the header NAME.h declaring that
// API (include/cuvil/runtime/ModelApi.h with the model's name).
#pragma once

#include "cuvil/backend/Backend.h"
#include "cuvil/backend/Target.h"
#include "cuvil/support/Status.h"

#include <string>
#include <vector>

namespace cuvil {

// Links `objects` into the library at `path`; `workDir` receives the
// intermediate files.
Status linkLibrary(const TargetConfig &target, const std::vector<std::string> &objects,
                   const std::string &workDir, const LibraryOutput &output,
                   const std::string &path);

// NAME.h: the API template with the model's name, under a comment that says
// what it was compiled from (`description`, one line per entry).
std::string libraryHeader(const LibraryOutput &output, const std::vector<std::string> &description);

} // namespace cuvil
