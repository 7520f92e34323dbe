// BitwiseOr (opset 18): the bits of a and b combined by or (BitwiseCommon.h).
#include "BitwiseCommon.h"

namespace cuvil::ops {

extern const OpDefinition kBitwiseOrOp = {
    OpSchema{"BitwiseOr", 2, 2, 1, 1, {}, inferBitwise, evalBitwise}, lowerBitwise};

} // namespace cuvil::ops
