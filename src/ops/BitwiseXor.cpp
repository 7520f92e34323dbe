// BitwiseXor (opset 18): the bits of a and b combined by xor (BitwiseCommon.h).
#include "BitwiseCommon.h"

namespace cuvil::ops {

extern const OpDefinition kBitwiseXorOp = {
    OpSchema{"BitwiseXor", 2, 2, 1, 1, {}, inferBitwise, evalBitwise}, lowerBitwise};

} // namespace cuvil::ops
