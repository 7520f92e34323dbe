#include "IsolatedShapeInference.h"

#include <cerrno>
#include <csignal>
#include <onnx/shape_inference/implementation.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cuvil {
namespace {

// In the child: infer on a copy, keep only the typed values, write them.
// A crash is only this process dying: the default actions (no handler, a
// sanitizer's or a fuzzer's, reports it as the compiler's), no core file.
[[noreturn]] void inferInChild(const onnx::ModelProto &model, int out) {
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
    std::signal(signal, SIG_DFL);
  struct rlimit noCore = {0, 0};
  ::setrlimit(RLIMIT_CORE, &noCore);
  int status = 1;
  try {
    onnx::ModelProto copy = model;
    onnx::shape_inference::InferShapes(copy);
    onnx::GraphProto types;
    *types.mutable_input() = copy.graph().input();
    *types.mutable_value_info() = copy.graph().value_info();
    *types.mutable_output() = copy.graph().output();
    std::string bytes = types.SerializeAsString();
    const char *data = bytes.data();
    size_t left = bytes.size();
    status = 0;
    while (left > 0) {
      ssize_t written = ::write(out, data, left);
      if (written <= 0) {
        status = 1;
        break;
      }
      data += written;
      left -= size_t(written);
    }
  } catch (...) {
    status = 1;
  }
  ::_exit(status);
}

} // namespace

std::optional<onnx::GraphProto> inferValueTypes(const onnx::ModelProto &model) {
  int pipeEnds[2];
  if (::pipe(pipeEnds) != 0)
    return std::nullopt;
  pid_t child = ::fork();
  if (child < 0) {
    ::close(pipeEnds[0]);
    ::close(pipeEnds[1]);
    return std::nullopt;
  }
  if (child == 0) {
    ::close(pipeEnds[0]);
    inferInChild(model, pipeEnds[1]);
  }
  ::close(pipeEnds[1]);
  std::string bytes;
  char buffer[1 << 16];
  for (ssize_t count; (count = ::read(pipeEnds[0], buffer, sizeof buffer)) != 0;) {
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0)
      break;
    bytes.append(buffer, size_t(count));
  }
  ::close(pipeEnds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  onnx::GraphProto types;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !types.ParseFromString(bytes))
    return std::nullopt;
  return types;
}

} // namespace cuvil
