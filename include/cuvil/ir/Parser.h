// Parses the textual IR written by printGraph (grammar in docs/IR.md).
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

#include <memory>
#include <string_view>

namespace cuvil {

// Errors carry "line:column: message".
Expected<std::unique_ptr<Graph>> parseGraph(std::string_view text);

} // namespace cuvil
