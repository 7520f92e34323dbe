// canonicalize's rewrite of ONNX's Attention (opsets 23, 24) into MatMul,
// Softmax and elementwise ops (CanonicalizeAttention.cpp).
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

namespace cuvil {

Status rewriteAttention(Graph &graph, Node &node);

} // namespace cuvil
