#include "BenchStats.h"

#include <algorithm>
#include <numeric>

namespace cuvil::runtime {

double nearestRankPercentile(std::span<const double> sorted, unsigned percent) {
  // Integer arithmetic: ceil(0.9 * 100) must be 90, not 91.
  size_t rank = (size_t(percent) * sorted.size() + 99) / 100;
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

BenchStats computeBenchStats(std::vector<double> samplesMs) {
  std::sort(samplesMs.begin(), samplesMs.end());
  BenchStats stats;
  stats.runs = samplesMs.size();
  stats.medianMs = nearestRankPercentile(samplesMs, 50);
  stats.p90Ms = nearestRankPercentile(samplesMs, 90);
  stats.p99Ms = nearestRankPercentile(samplesMs, 99);
  stats.minMs = samplesMs.front();
  stats.maxMs = samplesMs.back();
  stats.meanMs = std::accumulate(samplesMs.begin(), samplesMs.end(), 0.0) / double(stats.runs);
  return stats;
}

} // namespace cuvil::runtime
