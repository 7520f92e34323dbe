// What the random ops share (RandomUniform, RandomNormal, their Like forms,
// Multinomial): the element type they draw, and the parameters of their
// draws (include/cuvil/kernels/Random.h). They have no reference: a random
// op is never folded, even with a seed, so each run draws anew.
#pragma once

#include "OpSupport.h"
#include "cuvil/kernels/Random.h"

namespace cuvil::ops {

// The result's type: of the `shape` attribute (RandomUniform, RandomNormal)
// or of input 0's shape (the Like forms), of the float type `dtype` (f16,
// f32, f64; by default f32, or the Like forms' input's).
Status inferRandom(InferContext &ctx);

// The draw's key and stream: the `seed` attribute (its float's bits: ONNX
// gives seeds as floats), or the instance's seed without one; the stream
// from the node's first output name, so that two random ops of one model
// draw different numbers and a recompile draws the same.
cuvil_random_params randomParams(const Node &node, cuvil_random_distribution distribution, float a,
                                 float b);

// Fills result 0 with numbers uniform in [low, high) (the attributes), or
// normal of `mean` and standard deviation `scale`.
Status lowerUniform(const Node &node, LoweringContext &ctx);
Status lowerNormal(const Node &node, LoweringContext &ctx);

} // namespace cuvil::ops
