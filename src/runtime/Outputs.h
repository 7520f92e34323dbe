#ifndef CUVIL_RUNTIME_OUTPUTS_H
#define CUVIL_RUNTIME_OUTPUTS_H

#include "HostTensor.h"
#include "cuvil/runtime/ModelABI.h"

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace cuvil::runtime {

/// Zero-filled buffers for every model output, in model order, each of the
/// output's largest shape.
std::vector<HostTensor> allocateOutputs(const cuvil_model_info &model);

/// Gives each output the shape it has for these symbol values (after a run,
/// which computes the symbols that come from data).
void setOutputShapes(const cuvil_model_info &model, const std::vector<int64_t> &symbols,
                     std::vector<HostTensor> &outputs);

/// The file --output-dir writes an output to: its name with every character
/// outside [A-Za-z0-9._-] replaced by '_', plus ".npy".
std::string outputFileName(std::string_view outputName);

/// Writes every output to dir/<outputFileName>, creating dir if needed, each
/// atomically (a temporary file renamed over it). Throws, before writing
/// anything, if two outputs would share a file or one would overwrite one of
/// `inputPaths`; and if a write fails.
void writeOutputs(const std::string &dir, const cuvil_model_info &model,
                  const std::vector<HostTensor> &outputs,
                  const std::vector<std::string> &inputPaths);

/// Prints each output's name, dtype, shape and first few values.
void printOutputSummary(std::FILE *out, const cuvil_model_info &model,
                        const std::vector<HostTensor> &outputs);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_OUTPUTS_H
