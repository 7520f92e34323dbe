// DepthToSpace: blocks of channels moved into space (SpaceDepth.cpp).
#include "SpaceDepth.h"

namespace cuvil::ops {
extern const OpDefinition kDepthToSpaceOp = spaceDepthDefinition("DepthToSpace", /*toSpace=*/true);
} // namespace cuvil::ops
