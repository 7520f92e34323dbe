// fuse-qdq's rewrite of ONNX Runtime's quantize_dynamic MatMuls
// (MatMulInteger -> Cast -> Mul of the scales -> [bias Add]) into
// cuvil.MatMulIntegerToFloat; see FuseIntegerMatMulToFloat.cpp.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

namespace cuvil {

Status fuseIntegerMatMulsToFloat(Graph &graph);

} // namespace cuvil
