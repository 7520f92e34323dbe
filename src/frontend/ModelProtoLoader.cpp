#include "ModelProtoLoader.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <limits>
#include <unistd.h>

namespace cuvil {

Expected<onnx::ModelProto> loadModelProto(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return Status::error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  onnx::ModelProto model;
  bool parsed;
  {
    google::protobuf::io::FileInputStream file(fd);
    google::protobuf::io::CodedInputStream coded(&file);
    coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
    parsed = model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  ::close(fd);
  if (!parsed)
    return Status::error(fmt::format("{} is not a valid ONNX model (protobuf parse failed)", path));
  if (!model.has_graph())
    return Status::error(
        fmt::format("{} holds no graph (an empty file, or not an ONNX model)", path));
  return model;
}

} // namespace cuvil
