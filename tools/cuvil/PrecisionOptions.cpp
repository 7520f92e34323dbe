#include "PrecisionOptions.h"

#include "PrecisionSearch.h"

#include <fmt/format.h>

namespace cuvil {

Expected<PrecisionSettings> precisionSettings(const CompileOptions &options) {
  PrecisionSettings settings;
  Expected<PrecisionPolicy> policy = parsePrecisionPolicy(options.precision);
  CUVIL_TRY(policy.status());
  settings.policy = *policy;
  Expected<CalibrationMethod> method = parseCalibrationMethod(options.calibrationMethod);
  CUVIL_TRY(method.status());
  settings.calibration = {options.calibration, *method, options.percentile};
  if (!(options.percentile > 50 && options.percentile <= 100))
    return Status::error(fmt::format("--percentile {} is not in (50, 100]", options.percentile));
  if (quantizesFromRanges(*policy) && options.calibration.empty())
    return Status::error(fmt::format(
        "--precision {} needs --calibration DIR: sample inputs to measure activation ranges on",
        options.precision));
  const bool automatic = *policy == PrecisionPolicy::Auto;
  if (automatic == options.accuracyBudget.empty())
    return Status::error(automatic ? "--precision auto needs --accuracy-budget B: the relative "
                                     "error of the outputs allowed (e.g. 1%)"
                                   : "--accuracy-budget is --precision auto's");
  if (!options.report.empty() && !automatic)
    return Status::error("--report is --precision auto's");
  if (automatic) {
    Expected<double> budget = parseAccuracyBudget(options.accuracyBudget);
    CUVIL_TRY(budget.status());
    settings.budget = *budget;
  }
  return settings;
}

} // namespace cuvil
