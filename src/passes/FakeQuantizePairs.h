// fuse-qdq's last rewrite: a pre-quantized model's QuantizeLinear ->
// DequantizeLinear pairs left between f32 ops become cuvil.FakeQuantize;
// see FakeQuantizePairs.cpp.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

namespace cuvil {

Status fakeQuantizePairs(Graph &graph);

} // namespace cuvil
