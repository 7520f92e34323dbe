#include "cuvil/frontend/ExternalDataFiles.h"

#include "ModelProtoLoader.h"

#include <filesystem>
#include <set>

namespace cuvil {
namespace {

class Collector {
public:
  explicit Collector(std::filesystem::path dir) : dir_(std::move(dir)) {}

  void tensor(const onnx::TensorProto &tensor) {
    if (tensor.data_location() != onnx::TensorProto::EXTERNAL)
      return;
    for (const auto &entry : tensor.external_data())
      if (entry.key() == "location" && seen_.insert(entry.value()).second)
        files_.push_back((dir_ / entry.value()).string());
  }

  void graph(const onnx::GraphProto &graph) {
    for (const auto &initializer : graph.initializer())
      tensor(initializer);
    for (const auto &sparse : graph.sparse_initializer()) {
      tensor(sparse.values());
      tensor(sparse.indices());
    }
    nodes(graph.node());
  }

  template <typename Nodes> void nodes(const Nodes &list) {
    for (const auto &node : list)
      for (const auto &attribute : node.attribute()) {
        tensor(attribute.t());
        for (const auto &item : attribute.tensors())
          tensor(item);
        if (attribute.has_g())
          graph(attribute.g());
        for (const auto &item : attribute.graphs())
          graph(item);
      }
  }

  std::vector<std::string> take() { return std::move(files_); }

private:
  std::filesystem::path dir_;
  std::set<std::string> seen_;
  std::vector<std::string> files_;
};

} // namespace

Expected<std::vector<std::string>> externalDataFiles(const std::string &path) {
  Expected<onnx::ModelProto> model = loadModelProto(path);
  CUVIL_TRY(model.status());
  Collector collector(std::filesystem::path(path).parent_path());
  collector.graph(model->graph());
  for (const auto &function : model->functions())
    collector.nodes(function.node());
  return collector.take();
}

} // namespace cuvil
