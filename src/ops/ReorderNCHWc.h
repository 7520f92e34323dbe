// Shared by cuvil.ToNCHWc and cuvil.FromNCHWc: the plain <-> blocked
// reorders at the edges of NCHWc regions.
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

// Plain [N, C, spatial...] <-> blocked [N, ceil(C/K), spatial..., K], K = 16
// or 8 (ToNCHWc's `block`).
Status inferReorder(InferContext &ctx, bool toBlocked);
Status evalReorder(const Tensor &x, Tensor &y, bool toBlocked);
Status lowerReorder(const Node &node, LoweringContext &ctx, bool toBlocked);

} // namespace cuvil::ops
