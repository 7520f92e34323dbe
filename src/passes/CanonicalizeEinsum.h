// canonicalize's rewrite of Einsum into Transpose, Reshape, ReduceSum and
// MatMul steps (CanonicalizeEinsum.cpp).
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

namespace cuvil {

Status rewriteEinsum(Graph &graph, Node &node);

} // namespace cuvil
