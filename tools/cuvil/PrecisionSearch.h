// --precision auto --accuracy-budget B: which quantizable layers run INT8.
// One graph with a run-time switch per layer (addQuantizationSwitches) is
// compiled for this machine and run on the calibration samples:
//   1. every switch off: the FP32 outputs, the reference;
//   2. one layer on at a time: that layer's sensitivity, the error of the
//      outputs when it alone runs INT8;
//   3. layers on from the least sensitive up, one more per step, until the
//      error passes the budget (the explored front).
// The error is the relative L2 error of the float outputs over all samples,
// sqrt(sum (y - y_fp32)^2 / sum y_fp32^2). The choice is the longest prefix
// within the budget: every candidate layer is one the integer kernels run
// faster (assign-precision's rules), so more INT8 work is faster; each row
// carries its INT8 share of the Conv/MatMul multiply-accumulates and a
// latency estimate from it.
#pragma once

#include "Calibration.h"
#include "CompileDependencies.h"
#include "cuvil/frontend/OnnxImporter.h"

#include <optional>
#include <string>

namespace cuvil {

// "1%" or "0.01": a relative error in [0, 1].
Expected<double> parseAccuracyBudget(std::string_view text);

// Sets context.precision.layers (context.precision.ranges measured); returns
// the explored front as a table for the compile's summary and writes it as
// JSON to `reportPath` unless empty.
Expected<std::string> choosePrecision(const CompileOptions &options,
                                      const ImportOptions &importOptions,
                                      std::span<const PassInfo *const> before,
                                      std::span<const PassInfo *const> after, double budget,
                                      PassContext &context);

} // namespace cuvil
