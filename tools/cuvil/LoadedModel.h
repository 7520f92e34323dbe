// A graph compiled for this machine into a shared model library (the same
// kernels the executable runs) and loaded into the compiler: what
// calibration and the accuracy-budget search run their samples through.
#pragma once

#include "HostTensor.h"
#include "cuvil/ir/Graph.h"
#include "cuvil/runtime/ModelApi.h"
#include "cuvil/support/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace cuvil {

class LoadedModel {
public:
  // `graph` has run its passes; `purpose` prefixes errors ("calibration").
  static Expected<std::unique_ptr<LoadedModel>> compile(Graph &graph, const std::string &purpose);
  ~LoadedModel();
  LoadedModel(const LoadedModel &) = delete;
  LoadedModel &operator=(const LoadedModel &) = delete;

  int32_t numInputs() const;
  cuvil_tensor_desc input(int32_t i) const;
  // One tensor per graph input, in order; the outputs are then readable
  // until the next run.
  Status run(const std::vector<const runtime::HostTensor *> &inputs);
  size_t numOutputs() const { return outputs_.size(); }
  int32_t outputType(size_t i) const { return outputs_[i].elementType; }
  const void *outputData(size_t i) const { return outputs_[i].data; }
  int64_t outputElements(size_t i) const;

private:
  struct Library;
  struct Output {
    std::vector<std::byte> storage;
    void *data;
    std::vector<int64_t> dims;
    int32_t elementType;
  };
  LoadedModel() = default;

  std::string purpose_, directory_;
  std::unique_ptr<Library> library_;
  cuvil_instance *instance_ = nullptr;
  std::vector<Output> outputs_;
};

} // namespace cuvil
