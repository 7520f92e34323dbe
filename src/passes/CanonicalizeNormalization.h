// canonicalize's rewrites of the normalisations newer than Debian's ONNX
// (CanonicalizeNormalization.cpp): GroupNormalization into LayerNormalization
// over a grouped view, RMSNormalization into elementwise ops and a ReduceMean.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

namespace cuvil {

Status rewriteGroupNorm(Graph &graph, Node &node);
Status rewriteRmsNorm(Graph &graph, Node &node);

} // namespace cuvil
