// Copies a region's nodes into a graph, as when a control-flow node is
// replaced by the region its known condition picks (If with a constant
// condition): shape-inference does it before typing the region, so the
// copies are untyped like the region's nodes.
#pragma once

#include "cuvil/ir/Graph.h"

#include <span>
#include <vector>

namespace cuvil {

// Copies `region`'s constants and nodes (their regions too) into `target`
// before `before`, reading `inputs` where the region reads its inputs;
// returns the values that stand for its outputs.
std::vector<Value *> inlineRegion(const Graph &region, Graph &target, Node *before,
                                  std::span<Value *const> inputs);

} // namespace cuvil
