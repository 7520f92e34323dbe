// ONNX's own shape inference, run where a crash inside it cannot take the
// compiler down: libonnx's inference functions dereference missing inputs
// and types of malformed models (found by fuzzing), which no exception
// handler catches.
#pragma once

#include <onnx/onnx_pb.h>
#include <optional>

namespace cuvil {

// The types ONNX infers for `model`'s values, as a GraphProto holding only
// input, value_info and output entries; nullopt when inference fails, throws
// or crashes. It runs in a child process (fork), which sends the result back
// through a pipe.
std::optional<onnx::GraphProto> inferValueTypes(const onnx::ModelProto &model);

} // namespace cuvil
