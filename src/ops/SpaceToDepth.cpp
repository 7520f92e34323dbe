// SpaceToDepth: blocks of space moved into channels (SpaceDepth.cpp).
#include "SpaceDepth.h"

namespace cuvil::ops {
extern const OpDefinition kSpaceToDepthOp = spaceDepthDefinition("SpaceToDepth", /*toSpace=*/false);
} // namespace cuvil::ops
