// The channel block of the NCHWc layout: 16 channels (one AVX-512 vector) or
// 8 (one AVX2 vector). A blocked tensor carries it as its last dimension, so
// every blocked op reads it off its operand's shape.
#pragma once

#include "cuvil/ir/Dim.h"

#include <cstdint>

namespace cuvil::ops {

inline bool isChannelBlock(int64_t block) { return block == 16 || block == 8; }
inline bool isChannelBlock(const Dim &block) {
  return block.isConstant() && isChannelBlock(block.constant());
}

} // namespace cuvil::ops
