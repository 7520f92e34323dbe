#ifndef CUVIL_RUNTIME_BENCHSTATS_H
#define CUVIL_RUNTIME_BENCHSTATS_H

#include <cstddef>
#include <span>
#include <vector>

namespace cuvil::runtime {

/// Latency statistics over the timed runs of --bench, in milliseconds.
struct BenchStats {
  double medianMs = 0;
  double p90Ms = 0;
  double p99Ms = 0;
  double minMs = 0;
  double maxMs = 0;
  double meanMs = 0;
  size_t runs = 0;

  /// Inferences per second at the median latency.
  double throughputPerSecond() const { return medianMs > 0 ? 1000.0 / medianMs : 0; }
};

/// Nearest-rank percentile of ascending, non-empty samples: the
/// ceil(percent/100 * N)-th smallest sample (the smallest for percent 0).
double nearestRankPercentile(std::span<const double> sorted, unsigned percent);

/// Statistics of non-empty samplesMs, in any order.
BenchStats computeBenchStats(std::vector<double> samplesMs);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_BENCHSTATS_H
