// MaxPool (with its Indices) and AveragePool over 1-D, 2-D or 3-D windows
// (N-C-spatial layout).
#pragma once

#include "OpSupport.h"
#include "cuvil/ir/WindowGeometry.h"

namespace cuvil::ops {

enum class PoolKind { Max, Average };

Status inferPool(InferContext &ctx);
// `indices` (MaxPool's, or null) gets each window's first largest element.
Status evalPool(const Node &node, const Tensor &x, Tensor &y, Tensor *indices, PoolKind kind);
Status lowerPool(const Node &node, LoweringContext &ctx, PoolKind kind);

} // namespace cuvil::ops
