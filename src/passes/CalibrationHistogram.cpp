#include "cuvil/passes/CalibrationHistogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cuvil {
namespace {

// What a bin with no elements is given before the divergence, taken from
// the others so that the counts keep their sum (ONNX Runtime's
// smooth_distribution): a clipped range whose edge bins gather elements its
// steps cannot represent costs a large, finite divergence.
constexpr double kSmoothing = 1e-4;

// The divergence of quantizing the window [start, end) of `counts` in
// `levels` steps: P is the window's counts with the elements outside it
// added to its edge bins (clipping moves them there); Q merges the window's
// own counts into `levels` groups of adjacent bins and spreads each group's
// sum evenly over those of its bins where P is nonzero.
//   for j in window: group[j * levels / w] += counts[start + j]
//   Q[j] = P[j] ? groupSum / groupNonzeroBins : 0
//   KL(P || Q) over P and Q smoothed and normalised
double windowDivergence(const std::vector<uint64_t> &counts, const std::vector<uint64_t> &prefix,
                        int64_t start, int64_t end, int64_t levels, std::vector<double> &groupSum,
                        std::vector<int64_t> &groupNonzero) {
  const int64_t width = end - start, bins = int64_t(counts.size());
  const double below = double(prefix[size_t(start)]);
  const double above = double(prefix[size_t(bins)] - prefix[size_t(end)]);
  const double windowTotal = double(prefix[size_t(end)] - prefix[size_t(start)]);
  if (windowTotal == 0)
    return std::numeric_limits<double>::infinity();
  auto p = [&](int64_t j) {
    double count = double(counts[size_t(start + j)]);
    return count + (j == 0 ? below : 0) + (j == width - 1 ? above : 0);
  };
  std::fill(groupSum.begin(), groupSum.end(), 0.0);
  std::fill(groupNonzero.begin(), groupNonzero.end(), 0);
  int64_t zeroP = 0;
  for (int64_t j = 0; j < width; ++j) {
    const int64_t group = j * levels / width;
    groupSum[size_t(group)] += double(counts[size_t(start + j)]);
    const bool nonzero = p(j) > 0;
    groupNonzero[size_t(group)] += nonzero;
    zeroP += !nonzero;
  }
  int64_t zeroQ = 0;
  for (int64_t j = 0; j < width; ++j)
    zeroQ += p(j) > 0 && groupSum[size_t(j * levels / width)] == 0;
  zeroQ += zeroP; // Q is zero wherever P is
  const double sumP = below + windowTotal + above, sumQ = windowTotal;
  const double takeP = kSmoothing * double(zeroP) / double(width - zeroP);
  const double takeQ = kSmoothing * double(zeroQ) / double(width - zeroQ);

  // Bins where both are zero are each smoothed to kSmoothing.
  double divergence =
      double(zeroP) * kSmoothing / sumP * std::log((kSmoothing / sumP) / (kSmoothing / sumQ));
  for (int64_t j = 0; j < width; ++j) {
    const double pj = p(j);
    if (pj == 0)
      continue;
    const int64_t group = j * levels / width;
    const double qj = groupSum[size_t(group)] / double(groupNonzero[size_t(group)]);
    const double smoothP = std::max(pj - takeP, kSmoothing) / sumP;
    const double smoothQ = (qj > 0 ? std::max(qj - takeQ, kSmoothing) : kSmoothing) / sumQ;
    divergence += smoothP * std::log(smoothP / smoothQ);
  }
  return divergence;
}

} // namespace

CalibratedRange percentileRange(const CalibrationHistogram &histogram, double percentile) {
  const std::vector<uint64_t> &counts = histogram.counts;
  const int64_t bins = int64_t(counts.size());
  uint64_t total = 0;
  for (uint64_t count : counts)
    total += count;
  if (total == 0 || !(histogram.high > histogram.low))
    return {float(histogram.low), float(histogram.high)};
  const double tail = double(total) * (1.0 - percentile / 100.0);
  int64_t low = 0, high = bins - 1;
  for (double below = 0; low < high && below + double(counts[size_t(low)]) <= tail; ++low)
    below += double(counts[size_t(low)]);
  for (double above = 0; high > low && above + double(counts[size_t(high)]) <= tail; --high)
    above += double(counts[size_t(high)]);
  const double width = histogram.binWidth();
  return {float(histogram.low + double(low) * width),
          float(histogram.low + double(high + 1) * width)};
}

// Every window of `width` bins from `levels` (one bin per step) to all of
// them, placed so that zero divides it as it divides [low, high]: the
// window [low, high] * width / bins.
CalibratedRange entropyRange(const CalibrationHistogram &histogram, int64_t levels) {
  const std::vector<uint64_t> &counts = histogram.counts;
  const int64_t bins = int64_t(counts.size());
  std::vector<uint64_t> prefix(size_t(bins) + 1, 0);
  for (int64_t i = 0; i < bins; ++i)
    prefix[size_t(i) + 1] = prefix[size_t(i)] + counts[size_t(i)];
  if (prefix.back() == 0 || !(histogram.high > histogram.low) || bins <= levels)
    return {float(histogram.low), float(histogram.high)};

  const double zeroBin = -histogram.low / histogram.binWidth();
  std::vector<double> groupSum(static_cast<size_t>(levels));
  std::vector<int64_t> groupNonzero(static_cast<size_t>(levels));
  double best = std::numeric_limits<double>::infinity();
  int64_t bestStart = 0, bestEnd = bins;
  for (int64_t width = levels; width <= bins; ++width) {
    const double shrink = double(width) / double(bins);
    const int64_t start =
        std::clamp<int64_t>(std::llround(zeroBin * (1 - shrink)), 0, bins - width);
    const double divergence =
        windowDivergence(counts, prefix, start, start + width, levels, groupSum, groupNonzero);
    if (divergence < best) {
      best = divergence;
      bestStart = start;
      bestEnd = start + width;
    }
  }
  const double width = histogram.binWidth();
  return {float(histogram.low + double(bestStart) * width),
          float(histogram.low + double(bestEnd) * width)};
}

} // namespace cuvil
