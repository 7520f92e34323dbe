// Shared by cuvil.ToNCHWc and cuvil.FromNCHWc: the plain <-> blocked
// reorders at the edges of NCHW16c regions.
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

// Plain [N, C, spatial...] <-> blocked [N, ceil(C/16), spatial..., 16].
Status inferReorder(InferContext &ctx, bool toBlocked);
Status evalReorder(const Tensor &x, Tensor &y, bool toBlocked);
Status lowerReorder(const Node &node, LoweringContext &ctx, bool toBlocked);

} // namespace cuvil::ops
