// How a calibration method turns a value's histogram into the range its
// 8-bit quantization covers (tools/cuvil/Calibration.cpp builds the
// histograms; assign-precision quantizes [min(range.min, 0),
// max(range.max, 0)] in 256 u8 steps).
#pragma once

#include "cuvil/passes/Precision.h"

#include <cstdint>
#include <vector>

namespace cuvil {

// Counts of a value's elements in equal bins over [low, high].
struct CalibrationHistogram {
  double low = 0, high = 0;
  std::vector<uint64_t> counts;

  double binWidth() const { return (high - low) / double(counts.size()); }
};

// [low, high] with both tails clipped at `percentile` of the elements.
CalibratedRange percentileRange(const CalibrationHistogram &histogram, double percentile);

// The clipping range whose `levels`-step quantization loses the least
// information (KL divergence, as TensorRT's and ONNX Runtime's entropy
// calibration). The histogram must span zero (low <= 0 <= high): the
// candidate ranges shrink [low, high] towards zero by a common factor, so
// zero keeps its place and a one-sided (post-ReLU) value stays one-sided.
CalibratedRange entropyRange(const CalibrationHistogram &histogram, int64_t levels = 256);

} // namespace cuvil
