#ifndef CUVIL_RUNTIME_TENSORPROTOREADER_H
#define CUVIL_RUNTIME_TENSORPROTOREADER_H

#include "HostTensor.h"

#include <string_view>

namespace cuvil::runtime {

/// Parses a serialised onnx.TensorProto, the format of the ONNX backend test
/// data (input_0.pb...), straight from the protobuf wire format. Throws
/// std::runtime_error for malformed data, unsupported types and tensors whose
/// data lives in an external file.
HostTensor parseTensorProto(std::string_view bytes);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_TENSORPROTOREADER_H
