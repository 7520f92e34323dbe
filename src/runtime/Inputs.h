#ifndef CUVIL_RUNTIME_INPUTS_H
#define CUVIL_RUNTIME_INPUTS_H

#include "CommandLine.h"
#include "HostTensor.h"
#include "cuvil/runtime/ModelABI.h"

#include <string>
#include <vector>

namespace cuvil::runtime {

/// Reads a tensor from a .npy or ONNX TensorProto .pb file, told apart by
/// content rather than by name.
HostTensor loadTensorFile(const std::string &path);

/// Loads the tensor for every model input, in model order. Throws
/// std::runtime_error for unknown, repeated or missing names, unreadable files
/// and tensors whose dtype, rank or constant dims differ from the model's.
std::vector<HostTensor> loadInputs(const std::vector<InputArg> &args,
                                   const cuvil_model_info &model);

/// The value of each of the model's symbols the inputs give (0 for those
/// the run computes). Throws std::runtime_error naming the input, the dim
/// and the symbol for a dim outside its symbol's range, or two dims of one
/// symbol that differ.
std::vector<int64_t> bindSymbols(const cuvil_model_info &model,
                                 const std::vector<HostTensor> &inputs);

/// The path cuvil_run takes for these symbol values (the first whose values
/// they are; the generic one, last, takes any).
const cuvil_path_info &selectPath(const cuvil_model_info &model,
                                  const std::vector<int64_t> &symbols);

/// The largest shape of a model input or output (its dims, symbolic ones at
/// their maximum).
std::vector<int64_t> modelShape(const cuvil_tensor_info &info);

/// "1x3x224x224", "batchx3x224x224": symbolic dims by their expression.
std::string describeShape(const cuvil_tensor_info &info);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_INPUTS_H
