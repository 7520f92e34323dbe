#ifndef CUVIL_RUNTIME_DRIVER_H
#define CUVIL_RUNTIME_DRIVER_H

#include "cuvil/runtime/ModelABI.h"

namespace cuvil::runtime {

using ModelRunFn = int32_t (*)(void *frame, void *const *inputs, void *const *outputs,
                               int64_t *symbols, int64_t *errorValue);

/// Everything infer.bin does, for the model described by model and run by
/// run: parses the command line, loads inputs, runs or benchmarks, and reports.
/// Returns the exit status; errors go to stderr as one "error: ..." line.
/// Taking the model as parameters keeps this testable without a compiled model.
int runInfer(int argc, const char *const *argv, const cuvil_model_info &model, ModelRunFn run);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_DRIVER_H
