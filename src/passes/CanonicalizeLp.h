// canonicalize's rewrites of the Lp ops (CanonicalizeLp.cpp): LpPool,
// GlobalLpPool of p > 2, LpNormalization.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

namespace cuvil {

Status rewriteLpPool(Graph &graph, Node &node);
Status rewriteGlobalLpPool(Graph &graph, Node &node);
Status rewriteLpNormalization(Graph &graph, Node &node);

} // namespace cuvil
