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

// Input groups per step of the direct convolution: all of them when their
// weights fit L1, else as many as keep the step's weights (`groupWeightBytes`
// each, for all the tile's output blocks) within an L1 budget, at least one,
// balanced so that the steps are even.
int64_t convGroupsPerStep(int64_t groups, int64_t groupWeightBytes);

// Output rows the direct convolution takes through all its steps before
// moving on: as many as keep their partial sums (`rowBytes` each) in L2.
int64_t convRowsPerRun(int64_t rowBytes);

// True when weights of this size come from memory on every run (more than
// an L2 holds); the convolution kernels then prefetch ahead of their use.
bool weightsStreamFromMemory(int64_t weightBytes);

// True when threads should split a convolution's image rows rather than its
// output channels: its input outweighs its weights, so that each thread
// reading the whole input costs more than each reading all the weights.
bool splitRows(int64_t inputBytes, int64_t weightBytes);

struct DepthwiseTile {
  int64_t pixels;   // output pixels per tile
  bool reuseInputs; // interior tiles load each input vector once for all taps
};

// The depthwise kernel's tile: 8 pixels when a block is one register, 4
// when it takes two. A 3-tap-wide window at stride 1 or 2 without dilation
// reuses its inputs when they fit in registers beside the accumulators.
DepthwiseTile chooseDepthwiseTile(int64_t block, int vectorLanes, int64_t kernelW, int64_t strideW,
                                  int64_t dilationW);

} // namespace cuvil::ops
