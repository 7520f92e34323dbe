// Ops whose every result element is one of their input's elements (data
// movement, MaxPool) between a DequantizeLinear and a QuantizeLinear of the
// same per-tensor scale and zero point run on the 8-bit values, as ONNX
// Runtime drops such pairs: Q(op(DQ(q))) = op(q) exactly, since the
// dequantization is monotonic and each element round-trips. fuse-qdq
// applies it to a pre-quantized model's pairs, assign-precision to its own
// (a CNN stem's MaxPool between two quantized convolutions).
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

namespace cuvil {

// Ops whose results select elements of input 0 (the others are indices,
// shapes or axes), monotonic in it: they commute with a dequantization.
bool selectsElements(const Node &node);

// Every such op between a DequantizeLinear and a QuantizeLinear of one
// per-tensor quantization, its result read by that QuantizeLinear alone,
// rewritten to run on the quantized values.
Status selectOnQuantizedValues(Graph &graph);

} // namespace cuvil
