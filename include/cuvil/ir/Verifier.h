// Structural and type checks of a graph: SSA order, registered ops, arity,
// attribute kinds and (when types are known) agreement with each op's shape
// rule. Run after every pass in debug pipelines and by the parser's users.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

namespace cuvil {

struct VerifyOptions {
  // Require every value to be typed (true after shape inference).
  bool requireTypes = true;
};

Status verifyGraph(const Graph &graph, const VerifyOptions &options = {});

} // namespace cuvil
