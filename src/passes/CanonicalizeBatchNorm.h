// canonicalize's rewrite of BatchNormalization into elementwise ops and,
// in training mode, the reductions of the batch's statistics
// (CanonicalizeBatchNorm.cpp).
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

namespace cuvil {

Status rewriteBatchNorm(Graph &graph, Node &node);

} // namespace cuvil
