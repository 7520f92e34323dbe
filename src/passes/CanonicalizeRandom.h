// canonicalize's rewrites around the random ops (CanonicalizeRandom.cpp):
// training-mode Dropout and Bernoulli into a uniform draw and a comparison,
// Multinomial's f64 input cast to the f32 its kernel reads.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

namespace cuvil {

// Dropout whose training_mode is a constant true and whose ratio is not a
// constant 0 (Dropout's shape rule has checked training_mode is constant).
bool isRandomDropout(const Node &dropout);
Status rewriteRandomDropout(Graph &graph, Node &dropout);

Status rewriteMultinomialInput(Graph &graph, Node &multinomial);
Status rewriteBernoulli(Graph &graph, Node &bernoulli);

} // namespace cuvil
