// The optimiser update ops of the ai.onnx.preview.training domain
// (Adagrad, Adam, Momentum): one step of the update, written out in the
// IR's elementwise ops when the model is imported, so that a model of them
// compiles like any other arithmetic.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

#include <onnx/onnx_pb.h>
#include <string_view>
#include <vector>

namespace cuvil {

inline constexpr std::string_view kTrainingDomain = "ai.onnx.preview.training";

// Whether the node is one of those ops.
bool isOptimizerOp(const onnx::NodeProto &node);
// Adds the nodes computing the node's results from `inputs` (its operands,
// resolved) to `graph`; returns the values standing for its results.
Expected<std::vector<Value *>> importOptimizerOp(const onnx::NodeProto &node, Graph &graph,
                                                 const std::vector<Value *> &inputs);

} // namespace cuvil
