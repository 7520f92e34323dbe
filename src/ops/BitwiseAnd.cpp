// BitwiseAnd (opset 18): the bits of a and b combined by and (BitwiseCommon.h).
#include "BitwiseCommon.h"

namespace cuvil::ops {

extern const OpDefinition kBitwiseAndOp = {
    OpSchema{"BitwiseAnd", 2, 2, 1, 1, {}, inferBitwise, evalBitwise}, lowerBitwise};

} // namespace cuvil::ops
