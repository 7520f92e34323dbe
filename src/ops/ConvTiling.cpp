#include "ConvTiling.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

// 32 zmm registers: accumulators + one weight vector per block + a
// broadcast. 24 leaves room; 28 accumulators (14 x 2) was measured to spill.
constexpr int64_t kMaxAccumulators = 24;
constexpr int64_t kMaxPixels = 14;

// Cycles per input channel for a p x j tile: two FMA pipes, two loads per
// cycle, and an FMA latency of 4 that needs 8 chains in flight.
double tileCycles(int64_t p, int64_t j) {
  double fma = double(std::max<int64_t>(p * j, 8)) / 2;
  double loads = double(p + j) / 2;
  return std::max(fma, loads) + 0.25;
}

} // namespace

ConvTile chooseConvTile(int64_t outBlocks, int64_t rowWidth, int vectorLanes) {
  // A 16-lane vector takes 16 / vectorLanes registers on narrower targets.
  int64_t registersPerVector = std::max<int64_t>(1, 16 / std::max(vectorLanes, 1));
  // AVX2's 16 ymm registers: 4 accumulators (8 registers), the weights and
  // a broadcast.
  int64_t budget = registersPerVector == 1 ? kMaxAccumulators : 8 / registersPerVector;
  ConvTile best{1, 1};
  double bestCycles = 1e300;
  for (int64_t j = std::min<int64_t>(4, outBlocks); j >= 1; --j) {
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

} // namespace cuvil::ops
