// Helpers passes share: (re)typing new nodes and folding nodes to constants.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/ir/OpSchema.h"
#include "cuvil/support/Status.h"

namespace cuvil {

// Runs the node's shape rule; errors name the node.
Status inferNodeTypes(Node &node);

// True when every input is a constant (or, for ops folding from types, typed).
bool hasFoldableInputs(const Node &node);

// Evaluates the node's reference on its constant inputs and replaces every
// result by a new constant; the node is erased. Returns false (and leaves the
// graph alone) when the op has no reference or the result would be larger
// than `maxBytes` and larger than its inputs together.
Expected<bool> foldNode(Graph &graph, Node &node, size_t maxBytes);

// Makes a new node computing `op` on inputs just before `before`, types it,
// and returns its single result.
Expected<Value *> insertNode(Graph &graph, const std::string &op,
                             const std::vector<Value *> &inputs, Node *before,
                             const std::string &name);

} // namespace cuvil
