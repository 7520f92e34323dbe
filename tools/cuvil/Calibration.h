// Calibration: the ranges of the values assign-precision quantizes, measured
// by running the FP32 graph on a calibration set. The graph, with those
// values as extra outputs, is compiled for this machine into a shared model
// library (the same kernels the executable runs) and loaded into the
// compiler; every sample runs through it and each value's elements are
// folded into its statistics:
//   minmax      the smallest and largest element seen
//   percentile  a second run histograms each value over [min, max] (2048
//               bins) and clips both tails at the given percentile
//   entropy     the second run's histogram spans zero too; the range is the
//               one whose 256 steps diverge least from it (KL)
#pragma once

#include "CalibrationSet.h"
#include "cuvil/backend/Target.h"
#include "cuvil/passes/Pass.h"
#include "cuvil/passes/Precision.h"

#include <span>
#include <string>

namespace cuvil {

enum class CalibrationMethod : uint8_t { MinMax, Percentile, Entropy };

struct CalibrationSettings {
  std::string directory;
  CalibrationMethod method = CalibrationMethod::MinMax;
  double percentile = 99.99;
};

Expected<CalibrationMethod> parseCalibrationMethod(std::string_view text);

// `graph` has run the passes before assign-precision; `rest` are the passes
// after them (assign-precision included, which leaves FP32 alone). The
// graph is consumed.
Expected<CalibrationRanges> calibrate(Graph &graph, std::span<const PassInfo *const> rest,
                                      const PassContext &context,
                                      const std::vector<CalibrationSample> &samples,
                                      const CalibrationSettings &settings);

} // namespace cuvil
