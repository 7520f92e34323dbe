// The textual form of Cuvil IR (grammar in docs/IR.md). print() and parse()
// round-trip exactly, constants included.
#pragma once

#include "cuvil/ir/Graph.h"

#include <ostream>
#include <string>

namespace cuvil {

struct PrintOptions {
  // Print large constants as `dense<f32[64,3,7,7], ...>`: shorter, but the
  // result no longer parses.
  bool elideLargeConstants = false;
};

void printGraph(const Graph &graph, std::ostream &os, const PrintOptions &options = {});
std::string printGraph(const Graph &graph, const PrintOptions &options = {});
// Formats one node as it appears in the graph body (no trailing newline).
std::string printNode(const Node &node);

} // namespace cuvil
