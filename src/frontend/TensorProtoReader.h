// Converts ONNX TensorProtos (initializers, Constant values, attributes) to
// Cuvil tensors, reading external data from files next to the model.
#pragma once

#include "cuvil/ir/Tensor.h"
#include "cuvil/support/Status.h"

#include <onnx/onnx_pb.h>
#include <string>

namespace cuvil {

// `modelDir` bounds where external data may come from: a location outside it
// (absolute, or escaping with ..) is an error.
Expected<Tensor> readTensorProto(const onnx::TensorProto &proto, const std::string &modelDir);

} // namespace cuvil
