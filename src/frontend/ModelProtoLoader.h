// Reading a ModelProto from a file, for the importer and for listing the
// files a model's data lives in.
#pragma once

#include "cuvil/support/Status.h"

#include <onnx/onnx_pb.h>
#include <string>

namespace cuvil {

// The model at `path`, or why it is not one (unreadable, not a protobuf, no
// graph).
Expected<onnx::ModelProto> loadModelProto(const std::string &path);

} // namespace cuvil
