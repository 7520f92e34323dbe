// canonicalize's rewrites of activations exporters write out in elementwise
// ops (CanonicalizeActivations.cpp), matched at their final Mul:
// x * Sigmoid(x) -> cuvil.Silu; GELU's erf form and its tanh approximation
// (GPT-2's gelu_new) -> Gelu.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

namespace cuvil {

Status rewriteMul(Graph &graph, Node &mul);

} // namespace cuvil
