// canonicalize's rewrite of RotaryEmbedding into Slice, Gather, Unsqueeze,
// Mul, Sub, Add, Concat and Reshape (CanonicalizeRotary.cpp).
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

namespace cuvil {

Status rewriteRotaryEmbedding(Graph &graph, Node &node);

} // namespace cuvil
