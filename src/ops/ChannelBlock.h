// The channel block of the NCHWc layout: 16 channels (one AVX-512 vector) or
// 8 (one AVX2 vector). A blocked tensor carries it as its last dimension, so
// every blocked op reads it off its operand's shape.
#pragma once

#include <cstdint>
#include <fmt/format.h>
#include <string>
#include <string_view>

namespace cuvil::ops {

inline bool isChannelBlock(int64_t block) { return block == 16 || block == 8; }

// `cuvil_<stem>_nchw<block>c_f32`: the microkernel instance for one block
// (see CUVIL_BLOCKED_KERNELS in src/kernels/Vector.h).
inline std::string blockedKernel(std::string_view stem, int64_t block) {
  return fmt::format("cuvil_{}_nchw{}c_f32", stem, block);
}

} // namespace cuvil::ops
