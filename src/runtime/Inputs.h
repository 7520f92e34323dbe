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
/// and tensors whose dtype or shape differ from the model's.
std::vector<HostTensor> loadInputs(const std::vector<InputArg> &args,
                                   const cuvil_model_info &model);

/// The shape of a model input or output.
std::vector<int64_t> modelShape(const cuvil_tensor_info &info);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_INPUTS_H
