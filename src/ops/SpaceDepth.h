// DepthToSpace and SpaceToDepth move b x b blocks between the channels and
// the spatial dims of NCHW data: both are one 6-D strided copy, computed
// here once for the shape rule, the reference and the lowering.
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

// The copy: the output, contiguous, walked as `shape` with the input's
// element `strides`; the output's shape.
struct SpaceDepthCopy {
  Shape shape;
  std::vector<Dim> strides;
  Shape outShape;
};

// For DepthToSpace (toSpace) with mode "DCR" or "CRD", or SpaceToDepth;
// errors name what does not divide.
Expected<SpaceDepthCopy> spaceDepthCopy(const Node &node, const Shape &in, bool toSpace);

OpDefinition spaceDepthDefinition(std::string_view name, bool toSpace);

} // namespace cuvil::ops
