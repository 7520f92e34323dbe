// MaxPool and AveragePool over 1-D or 2-D windows (N-C-spatial layout).
#pragma once

#include "OpSupport.h"
#include "cuvil/ir/WindowGeometry.h"

namespace cuvil::ops {

enum class PoolKind { Max, Average };

Status inferPool(InferContext &ctx);
Status evalPool(const Node &node, const Tensor &x, Tensor &y, PoolKind kind);
Status lowerPool(const Node &node, LoweringContext &ctx, PoolKind kind);

} // namespace cuvil::ops
