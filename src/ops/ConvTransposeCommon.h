// The geometry ConvTranspose and its lowering, cuvil.ConvTransposeCol2Im,
// share: one rule for the output extents and the padding.
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

struct ConvTransposeGeometry {
  int64_t group, inChannels, outChannels; // outChannels over all groups
  // Per spatial axis (one to three), innermost last.
  std::vector<int64_t> kernel, strides, dilations, padsBegin;
  Shape input, output;
};

// X [N, C, spatial...]; the kernel's spatial extents and the output channels
// come from W [C, OC/group, kernel...] (ConvTranspose) or from the node's
// attributes (the col2im node). Output extent per axis:
//   stride * (in - 1) + output_padding + dilation * (k - 1) + 1 - pads,
// or output_shape with the padding it implies (split as auto_pad says).
Expected<ConvTransposeGeometry> convTransposeGeometry(const Node &node, const Shape &x,
                                                      int64_t outChannels,
                                                      const std::vector<int64_t> &kernel);

std::vector<AttrSpec> convTransposeAttributes();

} // namespace cuvil::ops
