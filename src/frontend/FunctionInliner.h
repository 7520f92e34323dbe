// Inlines ONNX functions before import. ONNX defines many ops by a body of
// other ops (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, CastLike,
// MeanVarianceNormalization, Celu, ...): a fixed body or one the schema
// builds from the node's input types. Models can carry their own functions
// too (ModelProto.functions, called by domain and name). A node the IR has
// no op for is replaced by its body, repeatedly, since bodies call other
// functions; ops the IR implements natively stay as they are.
#pragma once

#include "cuvil/support/Status.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <vector>

namespace cuvil {

// Rewrites `model`'s graph; `native(node)` says whether the IR implements a
// node as is. Returns, for each node of the rewritten graph, the opset of
// the default domain its form follows: the model's, or for a node from a
// body the opset the body was written against.
Expected<std::vector<int64_t>>
inlineFunctions(onnx::ModelProto &model, int64_t opset,
                const std::function<bool(const onnx::NodeProto &)> &native);

} // namespace cuvil
