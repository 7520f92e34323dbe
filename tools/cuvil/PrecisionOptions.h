// The precision options of a compile, checked together: --precision, the
// calibration set and method, and --precision auto's budget and report.
#pragma once

#include "Calibration.h"
#include "CompileDependencies.h"

namespace cuvil {

struct PrecisionSettings {
  PrecisionPolicy policy = PrecisionPolicy::FP32;
  CalibrationSettings calibration;
  double budget = 0; // --precision auto's relative error
};

// An option that does not fit the others is an error saying which.
Expected<PrecisionSettings> precisionSettings(const CompileOptions &options);

} // namespace cuvil
