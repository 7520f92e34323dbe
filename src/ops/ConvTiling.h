// Register-tile choice for the blocked direct convolution kernel.
#pragma once

#include <cstdint>

namespace cuvil::ops {

struct ConvTile {
  int64_t pixels; // output pixels per tile (along the row)
  int64_t blocks; // output-channel blocks per tile
};

// The tile of at most kMaxAccumulators zmm accumulators (fewer on 256-bit
// targets) that covers `outBlocks` x `rowWidth` blocks of `block` channels in
// the fewest estimated cycles. Tiles under 8 accumulators are latency-bound.
ConvTile chooseConvTile(int64_t outBlocks, int64_t rowWidth, int64_t block, int vectorLanes);

// Pixels per register tile of the depthwise kernel: 8 when a block is one
// register, 4 when it takes two.
int64_t depthwiseTilePixels(int64_t block, int vectorLanes);

} // namespace cuvil::ops
