// Register-tile choice for the blocked direct convolution kernel.
#pragma once

#include <cstdint>

namespace cuvil::ops {

struct ConvTile {
  int64_t pixels; // output pixels per tile (along the row)
  int64_t blocks; // 16-channel output blocks per tile
};

// The tile of at most kMaxAccumulators zmm accumulators (fewer when vectors
// are narrower than 16 lanes) that covers `outBlocks` x `rowWidth` in the
// fewest estimated cycles. Tiles under 8 accumulators are latency-bound.
ConvTile chooseConvTile(int64_t outBlocks, int64_t rowWidth, int vectorLanes);

} // namespace cuvil::ops
