#include "ConvTiling.h"

#include "cuvil/kernels/Conv.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

// Input bytes per weight byte above which threads split rows. ResNet-50 at
// 2 threads, rows first vs channels first, per convolution: layer2's 1x1
// (input 6-25x its weights) 0.78, layer2.0's 3x3 (2.7x) 0.93, layer3.0's
// 1x1 (3.1x) 0.91; layer3's 1x1 (0.2-0.8x) 1.02-1.12, layer4 (< 0.1x) 2.5.
// A ratio of costs, not of machine figures.
constexpr int64_t kRowSplitRatio = 2;

int64_t registersPerVector(int64_t block, const CpuModel &cpu) {
  return std::max<int64_t>(1, block / std::max(cpu.vectorLanes(), 1));
}

// Cycles per input channel for a p x j tile of blocks that take `split`
// registers each: FMAs over the FMA pipes (with latency x pipes chains in
// flight to hide the latency), loads (p broadcasts, j weight blocks) over
// the load ports. Counted in registers: a 16-lane block on AVX2 is two FMA
// chains, so a 1-pixel remainder of a 7-wide row (ResNet-50's layer4)
// waits on latency with 2 chains, where a 4 + 3 split keeps 8 and 6 busy.
double tileCycles(int64_t p, int64_t j, int64_t split, const CpuModel &cpu) {
  int64_t chains = int64_t(cpu.fmaLatency) * cpu.fmaPerCycle;
  double fma = double(std::max(p * j * split, chains)) / cpu.fmaPerCycle;
  double loads = double(p + j * split) / cpu.loadsPerCycle;
  return std::max(fma, loads) + 0.25;
}

} // namespace

TileBudget tileBudget(const CpuModel &cpu, int64_t block) {
  int64_t split = registersPerVector(block, cpu);
  int64_t accumulatorRegisters = cpu.vectorRegisters * 3 / 4;
  int64_t spare = cpu.vectorRegisters - accumulatorRegisters - 1; // one broadcast
  return {accumulatorRegisters / split, std::clamp<int64_t>(spare / split, 1, 4)};
}

cuvil_tile chooseConvTile(int64_t outBlocks, int64_t rowWidth, int64_t block, const CpuModel &cpu) {
  TileBudget budget = tileBudget(cpu, block);
  const int64_t split = registersPerVector(block, cpu);
  cuvil_tile best{1, 1};
  double bestCycles = 1e300;
  for (int64_t j = std::min(budget.blocks, outBlocks); j >= 1; --j) {
    for (int64_t p = budget.accumulators / j; p >= 1; --p) {
      if (!CUVIL_CONV_TILE_INSTANTIATED(block, p, j))
        continue;
      // Full tiles plus one remainder tile per row; full groups plus a remainder group.
      double cycles = 0;
      int64_t fullGroups = outBlocks / j, restBlocks = outBlocks % j;
      int64_t fullTiles = rowWidth / p, restPixels = rowWidth % p;
      for (auto [groups, blocks] : {std::pair{fullGroups, j}, std::pair{int64_t(1), restBlocks}}) {
        if (blocks == 0 || groups == 0)
          continue;
        double row = double(fullTiles) * tileCycles(p, blocks, split, cpu) +
                     (restPixels ? tileCycles(restPixels, blocks, split, cpu) : 0.0);
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

// Weights that fit L1 whole take one step: more would only add trips of
// partial sums (a 7x7 first layer over 3 channels: 1.27 -> 1.20 ms). Else a
// step keeps its weights in half of L1, beside the input rows and output
// tiles (weights loaded from L1 rather than L2 held ResNet-50's 7x7 3x3
// convolution at 1.175 ms instead of 1.46).
int64_t convGroupsPerStep(int64_t groups, int64_t groupWeightBytes, const CpuModel &cpu) {
  if (groups * groupWeightBytes <= cpu.l1Bytes)
    return groups;
  int64_t fit = std::clamp<int64_t>(cpu.l1Bytes / 2 / std::max<int64_t>(groupWeightBytes, 1), 1,
                                    std::max<int64_t>(groups, 1));
  int64_t steps = (groups + fit - 1) / fit;
  return (groups + steps - 1) / steps;
}

int64_t convRowsPerRun(int64_t rowBytes, const CpuModel &cpu) {
  return std::max<int64_t>(1, cpu.l2Bytes / 4 / std::max<int64_t>(rowBytes, 1));
}

bool splitRows(int64_t inputBytes, int64_t weightBytes) {
  return inputBytes > kRowSplitRatio * weightBytes;
}

// Weights over L2 (ResNet-50's layer4 convolutions have 4-9 MiB each),
// consumed in short steps (GK input groups of J blocks), kept the hardware
// prefetchers at about 5 GB/s; the kernel then fetches each step's
// successor into L2 while computing it (layer4 1x1: 0.65 -> 0.59 ms, 3x3:
// 1.51 -> 1.26 ms). The Winograd kernel prefetches the next position's
// transformed weights.
bool weightsStreamFromMemory(int64_t weightBytes, const CpuModel &cpu) {
  return weightBytes > cpu.l2Bytes;
}

DepthwiseTile chooseDepthwiseTile(int64_t block, const CpuModel &cpu, int64_t kernelW,
                                  int64_t strideW, int64_t dilationW) {
  int64_t split = registersPerVector(block, cpu);
  int64_t pixels = split == 1 ? 8 : 4;
  // Inputs, accumulators and one weight vector, against the registers.
  int64_t vectors = (pixels - 1) * strideW + 3 + pixels + 1;
  bool reuse = CUVIL_DWCONV_REUSE_INSTANTIATED(kernelW, strideW, dilationW) &&
               vectors * split <= cpu.vectorRegisters;
  return {pixels, reuse};
}

} // namespace cuvil::ops
