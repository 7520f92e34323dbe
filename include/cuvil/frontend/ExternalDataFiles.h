// The files besides the model that a compile reads: its tensors' external
// data. The compile cache keys on their bytes as on the model's.
#pragma once

#include "cuvil/support/Status.h"

#include <string>
#include <vector>

namespace cuvil {

// Every distinct external_data location of the model at `path` (initializers,
// sparse ones, tensors in node attributes, subgraphs and functions), as
// paths next to the model, in first-use order. Only lists them: the importer
// checks where they point.
Expected<std::vector<std::string>> externalDataFiles(const std::string &path);

} // namespace cuvil
