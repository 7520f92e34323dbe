// The quantized ops of ONNX Runtime's com.microsoft domain that its
// quantize_static writes in the QOperator format (the ONNX model zoo's
// INT8 models have them): QLinearAdd, QLinearMul, QLinearConcat,
// QLinearGlobalAveragePool, QLinearAveragePool, QLinearSigmoid and
// QLinearLeakyRelu. Each is written out at import as what it computes:
// DequantizeLinear of its operands, the float op, QuantizeLinear of the
// result (ONNX Runtime's kernels compute in float alike; a tie may round a
// quantum apart). And the f32-result integer matmuls its transformer
// optimizer writes, MatMulIntegerToFloat and DynamicQuantizeMatMul: as
// cuvil.MatMulIntegerToFloat (after a DynamicQuantizeLinear for the latter);
// and QGemm, its quantize_static's Gemm, as the integer GEMM and its scaling.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

#include <onnx/onnx_pb.h>
#include <string_view>
#include <vector>

namespace cuvil {

inline constexpr std::string_view kMicrosoftDomain = "com.microsoft";

bool isMicrosoftQuantizedOp(const onnx::NodeProto &node);
// Adds the nodes computing the node's result from `inputs` (its operands,
// resolved; null where omitted) to `graph`; returns the value standing for
// it.
Expected<Value *> importMicrosoftQuantizedOp(const onnx::NodeProto &node, Graph &graph,
                                             const std::vector<Value *> &inputs);

} // namespace cuvil
