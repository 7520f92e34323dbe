// Register tiles and cache steps of the convolution kernels, chosen from
// the target's CPU model.
#pragma once

#include "cuvil/kernels/Common.h"
#include "cuvil/target/CpuModel.h"

#include <cstdint>

namespace cuvil::ops {

// The accumulators and output blocks a register tile of `block`-channel
// vectors may hold on `cpu`: three quarters of the vector registers
// accumulate (28 of 32 zmm were measured to spill), the rest hold one weight
// vector per block and a broadcast. A block wider than a register takes
// several, which the counts are in units of.
struct TileBudget {
  int64_t accumulators; // block vectors
  int64_t blocks;       // at most, and at most 4 (the kernels' widest tile)
};
TileBudget tileBudget(const CpuModel &cpu, int64_t block);

// The direct convolution's tile (pixels x output blocks) covering
// `outBlocks` x `rowWidth` in the fewest estimated cycles, among the tiles
// the kernel instantiates for `block` and the budget allows.
cuvil_tile chooseConvTile(int64_t outBlocks, int64_t rowWidth, int64_t block, const CpuModel &cpu);

// Input groups per step of the direct convolution: all of them when their
// weights fit L1, else as many as keep the step's weights (`groupWeightBytes`
// each, for all the tile's output blocks) within half of L1, at least one,
// balanced so that the steps are even.
int64_t convGroupsPerStep(int64_t groups, int64_t groupWeightBytes, const CpuModel &cpu);

// Output rows the direct convolution takes through all its steps before
// moving on: as many as keep their partial sums (`rowBytes` each) in a
// quarter of L2.
int64_t convRowsPerRun(int64_t rowBytes, const CpuModel &cpu);

// True when weights of this size come from memory on every run (more than
// L2 holds); the convolution kernels then prefetch ahead of their use.
bool weightsStreamFromMemory(int64_t weightBytes, const CpuModel &cpu);

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
DepthwiseTile chooseDepthwiseTile(int64_t block, const CpuModel &cpu, int64_t kernelW,
                                  int64_t strideW, int64_t dilationW);

} // namespace cuvil::ops
