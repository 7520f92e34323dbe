// What assign-precision and the accuracy-budget search (--precision auto)
// share: the ops that may run on the integer kernels, and the arithmetic
// that quantizes their activations, weights and bias.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/passes/Pass.h"
#include "cuvil/passes/Precision.h"

#include <vector>

namespace cuvil {

// A Conv or MatMul the integer kernels run faster than FP32, and what its
// quantization covers.
struct Candidate {
  Node *op;
  Node *absorbed;           // the Relu or Clip quantized with the result, or null
  const Value *input;       // the activation, or the result it selects from, whose range it takes
  const Value *represented; // what the dequantized result replaces
};

// In graph order.
std::vector<Candidate> candidates(const Graph &graph, const PassContext &context);

// Whether the candidate's activations are quantized per row at run time (a
// MatMul: transformers' activations have outlier channels and tokens that
// one calibrated scale per tensor would spend every row's resolution on),
// so that it needs no calibrated range and absorbs no activation; else per
// tensor with the calibrated ranges of its input and result.
bool quantizesRowsAtRunTime(const Node &op);

// A convolution that feeds a depthwise one or reads one (through an
// activation, and through a pre-quantized model's QuantizeLinear ->
// DequantizeLinear pairs): an inverted-residual block, which FP32's blocked
// kernels run faster than the integer ones over u8 planes (and fuse where
// its intermediates outgrow L2).
bool nextToDepthwise(const Node &conv);

// The result's name, which names the layer in --precision auto's choice.
const std::string &layerName(const Candidate &c);

// Multiply-accumulates of one run of the op (its OPT shape).
double multiplyAccumulates(const Node &op);

// u8 scale and zero point of a calibrated range.
struct ActivationQuant {
  float scale;
  uint8_t zero;
};
ActivationQuant activationQuant(CalibratedRange range);

// Weights quantized symmetrically per channel: `channels` groups of the
// flat weights, channel c at flat index (i / inner) % channels.
struct QuantizedWeights {
  Tensor values, scales;
};
// A new scalar constant named after `name`.
Value *addScalar(Graph &graph, const std::string &name, DType dtype, double value);

// Conv weights [M, C/g, k...] per output channel M; MatMul's [K, N] per
// column N; each channel's values within the largest [-L, L] the bound
// allows (PrecisionOptions::weights).
QuantizedWeights quantizeWeights(const Node &op, WeightBound bound);

// The bias at scale sx * sw[m], zero point 0.
Tensor quantizeBias(const Tensor &bias, float inputScale, const Tensor &weightScales);

} // namespace cuvil
