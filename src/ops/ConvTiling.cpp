#include "ConvTiling.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

// 32 zmm registers: accumulators + one weight vector per block + a
// broadcast. 24 leaves room; 28 accumulators (14 x 2) was measured to spill.
constexpr int64_t kMaxAccumulators = 24;
// 16 ymm registers with 8-lane blocks: 12 accumulators, at most 3 weight
// vectors and a broadcast (4 x 3 needs 17).
constexpr int64_t kMaxAccumulators256 = 12;
constexpr int64_t kMaxBlocks256 = 3;
// Blocks wider than a register (16 lanes on AVX2, two ymm each): one block
// of up to 6 pixels, 12 registers of accumulators, 2 of weights and a
// broadcast. (Two blocks would need 4 weight registers; 8 accumulator
// registers made ResNet-50 1.6x slower on AVX2.)
constexpr int64_t kMaxSplitRegisters = 12;
constexpr int64_t kMaxPixels = 14;
// Weights one convolution step keeps in L1 (48 KiB on Zen 4/5 and Intel
// since Ice Lake, 32 KiB before) beside the input rows and output tiles.
constexpr int64_t kStepWeightBytes = 24 * 1024;
// Weights that fit L1 whole take one step: more would only add trips of
// partial sums (a 7x7 first layer over 3 channels: 1.27 -> 1.20 ms).
constexpr int64_t kSingleStepWeightBytes = 48 * 1024;
// Partial sums a run of rows keeps between steps (a quarter of a 1-2 MiB L2).
constexpr int64_t kRunOutputBytes = 256 * 1024;

int64_t registersPerVector(int64_t block, int vectorLanes) {
  return std::max<int64_t>(1, block / std::max(vectorLanes, 1));
}

// Cycles per input channel for a p x j tile: two FMA pipes, two loads per
// cycle, and an FMA latency of 4 that needs 8 chains in flight.
double tileCycles(int64_t p, int64_t j) {
  double fma = double(std::max<int64_t>(p * j, 8)) / 2;
  double loads = double(p + j) / 2;
  return std::max(fma, loads) + 0.25;
}

// Weights above this size come from memory on every run (an L2 holds 1-2
// MiB; ResNet-50's layer4 convolutions have 4-9 MiB each). Consumed in short
// steps (GK input groups of J blocks), they kept the hardware prefetchers at
// about 5 GB/s; the kernel then fetches each step's successor into L2 while
// computing it (layer4 1x1: 0.65 -> 0.59 ms, 3x3: 1.51 -> 1.26 ms). The
// Winograd kernel prefetches the next position's transformed weights.
constexpr int64_t kStreamedWeightBytes = int64_t(1) << 20;

// Input bytes per weight byte above which threads split rows. ResNet-50 at
// 2 threads, rows first vs channels first, per convolution: layer2's 1x1
// (input 6-25x its weights) 0.78, layer2.0's 3x3 (2.7x) 0.93, layer3.0's
// 1x1 (3.1x) 0.91; layer3's 1x1 (0.2-0.8x) 1.02-1.12, layer4 (< 0.1x) 2.5.
constexpr int64_t kRowSplitRatio = 2;

} // namespace

ConvTile chooseConvTile(int64_t outBlocks, int64_t rowWidth, int64_t block, int vectorLanes) {
  // The kernel instantiates tiles of 8-lane blocks up to 12 accumulators
  // only (kMaxTileAccumulators in ConvNCHWc.cpp).
  int64_t split = registersPerVector(block, vectorLanes);
  int64_t budget = split > 1 ? kMaxSplitRegisters / split
                             : (block == 16 ? kMaxAccumulators : kMaxAccumulators256);
  int64_t maxBlocks = split > 1 ? 1 : (block == 16 ? 4 : kMaxBlocks256);
  ConvTile best{1, 1};
  double bestCycles = 1e300;
  for (int64_t j = std::min(maxBlocks, outBlocks); j >= 1; --j) {
    for (int64_t p = std::min(kMaxPixels, budget / j); p >= 1; --p) {
      // Full tiles plus one remainder tile per row; full groups plus a remainder group.
      double cycles = 0;
      int64_t fullGroups = outBlocks / j, restBlocks = outBlocks % j;
      int64_t fullTiles = rowWidth / p, restPixels = rowWidth % p;
      for (auto [groups, blocks] : {std::pair{fullGroups, j}, std::pair{int64_t(1), restBlocks}}) {
        if (blocks == 0 || groups == 0)
          continue;
        double row = double(fullTiles) * tileCycles(p, blocks) +
                     (restPixels ? tileCycles(restPixels, blocks) : 0.0);
        cycles += double(groups) * row;
      }
      if (cycles < bestCycles - 1e-9) {
        bestCycles = cycles;
        best = {p, j};
      }
    }
  }
  return best;
}

int64_t convGroupsPerStep(int64_t groups, int64_t groupWeightBytes) {
  if (groups * groupWeightBytes <= kSingleStepWeightBytes)
    return groups;
  int64_t fit = std::clamp<int64_t>(kStepWeightBytes / std::max<int64_t>(groupWeightBytes, 1), 1,
                                    std::max<int64_t>(groups, 1));
  int64_t steps = (groups + fit - 1) / fit;
  return (groups + steps - 1) / steps;
}

int64_t convRowsPerRun(int64_t rowBytes) {
  return std::max<int64_t>(1, kRunOutputBytes / std::max<int64_t>(rowBytes, 1));
}

bool splitRows(int64_t inputBytes, int64_t weightBytes) {
  return inputBytes > kRowSplitRatio * weightBytes;
}

bool weightsStreamFromMemory(int64_t weightBytes) { return weightBytes > kStreamedWeightBytes; }

DepthwiseTile chooseDepthwiseTile(int64_t block, int vectorLanes, int64_t kernelW, int64_t strideW,
                                  int64_t dilationW) {
  int64_t split = registersPerVector(block, vectorLanes);
  int64_t pixels = split == 1 ? 8 : 4;
  // Inputs, accumulators and one weight vector, against 32 zmm or 16 ymm.
  int64_t vectors = (pixels - 1) * strideW + 3 + pixels + 1;
  int64_t registers = vectorLanes >= 16 ? 32 : 16;
  bool reuse = kernelW == 3 && dilationW == 1 && (strideW == 1 || strideW == 2) &&
               vectors * split <= registers;
  return {pixels, reuse};
}

} // namespace cuvil::ops
