// Converts ONNX TensorProtos (initializers, Constant values, attributes) to
// Cuvil tensors, reading external data from files next to the model.
#pragma once

#include "cuvil/ir/Tensor.h"
#include "cuvil/support/Status.h"

#include <onnx/onnx_pb.h>
#include <string>
#include <vector>

namespace cuvil {

// `modelDir` bounds where external data may come from: a location outside it
// (absolute, or escaping with ..) is an error.
// Not for strings, which constants never hold (DType.h): see readStringTensorProto.
Expected<Tensor> readTensorProto(const onnx::TensorProto &proto, const std::string &modelDir);

// A string TensorProto's dims and its strings (string_data), checked to agree.
struct StringTensor {
  Shape shape;
  std::vector<std::string> strings;
};
Expected<StringTensor> readStringTensorProto(const onnx::TensorProto &proto);

} // namespace cuvil
