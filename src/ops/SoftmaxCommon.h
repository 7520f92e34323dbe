// Softmax and LogSoftmax along one axis (opset 13 semantics; the importer
// rewrites the older coerce-to-2-D form).
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

Status inferSoftmax(InferContext &ctx);
Status evalSoftmax(const Node &node, const Tensor &x, Tensor &y, bool log);
Status lowerSoftmax(const Node &node, LoweringContext &ctx, bool log);

} // namespace cuvil::ops
