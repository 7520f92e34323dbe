// canonicalize's rewrites of CenterCropPad into Slice and Pad, and of
// AffineGrid into a batched MatMul with a constant base grid, of Col2Im
// into ConvTranspose's scatter, and of DeformConv into sampled columns and a
// MatMul (CanonicalizeGeometry.cpp).
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

namespace cuvil {

Status rewriteCenterCropPad(Graph &graph, Node &node);
Status rewriteCol2Im(Graph &graph, Node &node);
Status rewriteDeformConv(Graph &graph, Node &node);
Status rewriteAffineGrid(Graph &graph, Node &node);

} // namespace cuvil
