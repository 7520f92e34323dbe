// Shape rule, reference and lowering shared by Conv and cuvil.FusedConv.
#pragma once

#include "FusedActivation.h"
#include "OpSupport.h"
#include "cuvil/ir/WindowGeometry.h"

namespace cuvil::ops {

// Inputs X [N, C, spatial...], W [M, C/group, kernel...], optional B [M].
Expected<WindowGeometry> convGeometry(const Node &node, const Shape &x, const Shape &w);
Status inferConv(InferContext &ctx);
// y = act(conv(x, w) + b + residual); residual (same shape as y) may be null.
Status evalConv(const Node &node, const Tensor &x, const Tensor &w, const Tensor *b,
                const Tensor *residual, const FusedActivation &activation, Tensor &y);
Status lowerConv(const Node &node, LoweringContext &ctx, const Value *residual,
                 const FusedActivation &activation);

std::vector<AttrSpec> convAttributes(std::vector<AttrSpec> extra = {});

} // namespace cuvil::ops
