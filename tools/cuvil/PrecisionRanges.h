// Where a compile's calibrated ranges come from: the ranges file next to
// the output when it was measured from the same model, calibration set
// and method, else a calibration run now, whose ranges are written there
// (so that a recompile with another policy or option does not recalibrate).
#pragma once

#include "Calibration.h"
#include "CompileDependencies.h"
#include "cuvil/frontend/OnnxImporter.h"

namespace cuvil {

// Sets context.precision.ranges; returns where they came from, for the
// compile's summary. `graph` has run `before`, the passes ahead of
// assign-precision (`after` the rest); calibration imports the model again,
// so it is left as it is.
Expected<std::string>
loadOrMeasureRanges(const CompileOptions &options, const std::optional<LibraryOutput> &library,
                    const ImportOptions &importOptions, const Graph &graph,
                    std::span<const PassInfo *const> before, std::span<const PassInfo *const> after,
                    const CalibrationSettings &calibration, PassContext &context);

} // namespace cuvil
