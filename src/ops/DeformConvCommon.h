// The geometry DeformConv and its column op share: a 2-D convolution window
// over X [N, C, H, W] whose taps are moved by offset [N, offset_group x 2 x
// taps, OH, OW] ((dy, dx) per tap) and scaled by mask [N, offset_group x
// taps, OH, OW].
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

struct DeformGeometry {
  WindowGeometry window; // over X's H, W; its output is OH, OW
  int64_t channels = 0, groups = 1, offsetGroups = 1, taps = 0;
};

// Checks X (input 0, whose dims as [N, C, H, W] are `x`), offset and mask
// (inputs `offsetInput` and `maskInput`, mask optional) against the window
// of `kernel`; groups and offset groups from the node's group and
// offset_group.
Expected<DeformGeometry> deformGeometry(const InferContext &ctx, const Shape &x,
                                        const std::vector<int64_t> &kernel, size_t offsetInput,
                                        size_t maskInput);

// The attributes both ops take.
std::vector<AttrSpec> deformAttributes();

} // namespace cuvil::ops
