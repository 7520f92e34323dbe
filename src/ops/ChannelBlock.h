// The channel block of the NCHWc layout: 16 channels (one AVX-512 vector) or
// 8 (one AVX2 vector). A blocked tensor carries it as its last dimension, so
// every blocked op reads it off its operand's shape.
#pragma once

#include "cuvil/ir/Dim.h"
#include "cuvil/kernels/Conv.h"

#include <cstdint>

namespace cuvil::ops {

inline bool isChannelBlock(int64_t block) { return block == 16 || block == 8; }
inline bool isChannelBlock(const Dim &block) {
  return block.isConstant() && isChannelBlock(block.constant());
}

// The input blocks each output block of a grouped convolution (`groups`
// groups of `groupIn` input and `groupOut` output channels) convolves: the
// widest span from the block holding its first group's first input channel
// to the one holding its last group's last (cuvil_conv_window_start places
// each window).
inline int64_t groupedWindowBlocks(int64_t groupIn, int64_t groupOut, int64_t groups,
                                   int64_t block) {
  int64_t window = 1, outBlocks = (groupOut * groups + block - 1) / block;
  for (int64_t ob = 0; ob < outBlocks; ++ob) {
    int64_t last = (ob * block + block - 1) / groupOut;
    last = last < groups - 1 ? last : groups - 1;
    // Unclamped: no input is too short for a window of 0.
    int64_t start = cuvil_conv_window_start(ob, block, groupIn, groupOut, INT64_MAX, 0);
    int64_t end = ((last + 1) * groupIn + block - 1) / block;
    window = end - start > window ? end - start : window;
  }
  return window;
}

} // namespace cuvil::ops
