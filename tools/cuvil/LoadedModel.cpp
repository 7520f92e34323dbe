#include "LoadedModel.h"

#include "DType.h"
#include "cuvil/backend/Backend.h"

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fmt/format.h>

namespace cuvil {

namespace fs = std::filesystem;

namespace {

constexpr const char *kLibraryName = "loaded";

} // namespace

// The C API of the library (include/cuvil/runtime/ModelApi.h, its functions
// prefixed with the library's name).
struct LoadedModel::Library {
  void *handle = nullptr;
  int32_t (*numInputs)() = nullptr;
  int32_t (*numOutputs)() = nullptr;
  cuvil_status (*input)(int32_t, cuvil_tensor_desc *) = nullptr;
  cuvil_status (*output)(int32_t, cuvil_tensor_desc *) = nullptr;
  cuvil_status (*create)(cuvil_instance **) = nullptr;
  void (*destroy)(cuvil_instance *) = nullptr;
  cuvil_status (*run)(cuvil_instance *, const void *const *, const int64_t *const *, void *const *,
                      int64_t *const *) = nullptr;
  const char *(*lastError)(const cuvil_instance *) = nullptr;

  ~Library() {
    if (handle)
      dlclose(handle);
  }

  template <typename Fn> Status resolve(const char *suffix, Fn &fn) {
    std::string name = fmt::format("{}_{}", kLibraryName, suffix);
    fn = reinterpret_cast<Fn>(dlsym(handle, name.c_str()));
    if (!fn)
      return Status::error(fmt::format("the model library lacks {}", name));
    return Status::success();
  }

  Status load(const std::string &path) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return Status::error(fmt::format("cannot load the model library: {}", dlerror()));
    CUVIL_TRY(resolve("num_inputs", numInputs));
    CUVIL_TRY(resolve("num_outputs", numOutputs));
    CUVIL_TRY(resolve("input", input));
    CUVIL_TRY(resolve("output", output));
    CUVIL_TRY(resolve("create", create));
    CUVIL_TRY(resolve("destroy", destroy));
    CUVIL_TRY(resolve("run", run));
    return resolve("last_error", lastError);
  }
};

Expected<std::unique_ptr<LoadedModel>> LoadedModel::compile(Graph &graph,
                                                            const std::string &purpose) {
  std::unique_ptr<LoadedModel> model(new LoadedModel());
  model->purpose_ = purpose;
  std::string pattern = (fs::temp_directory_path() / "cuvil-model-XXXXXX").string();
  if (!mkdtemp(pattern.data()))
    return Status::error(fmt::format("{}: cannot make a temporary directory", purpose));
  model->directory_ = pattern;
  // The library runs here: it is built for this machine, whatever the target.
  Expected<TargetConfig> host = resolveTarget("x86_64-linux", "native");
  CUVIL_TRY(host.status());
  BackendOptions options;
  options.target = *host;
  options.emit = EmitKind::SharedLibrary;
  options.outputPath = (fs::path(model->directory_) / kLibraryName).string();
  BackendStats stats;
  bool symbolic = !graph.symbols().empty();
  CUVIL_TRY(compileToOutput(graph, {{&graph, symbolic ? "generic" : "static", {}}}, options, stats)
                .withContext(purpose));
  model->library_ = std::make_unique<Library>();
  Library &library = *model->library_;
  CUVIL_TRY(
      library.load((fs::path(model->directory_) / fmt::format("lib{}.so", kLibraryName)).string())
          .withContext(purpose));
  if (library.create(&model->instance_) != CUVIL_OK)
    return Status::error(fmt::format("{}: {}", purpose, library.lastError(nullptr)));
  for (int32_t i = 0; i < library.numOutputs(); ++i) {
    cuvil_tensor_desc desc{};
    if (library.output(i, &desc) != CUVIL_OK)
      return Status::error(
          fmt::format("{}: the model library does not describe its outputs", purpose));
    const runtime::DTypeInfo *type = runtime::findDType(desc.element_type);
    int64_t elements = 1;
    for (int32_t d = 0; d < desc.rank; ++d)
      elements *= desc.max_dims[d];
    Output &output = model->outputs_.emplace_back();
    // 64 bytes to spare, so that the data can start 64-byte aligned.
    output.storage.resize(size_t(elements) * (type ? type->size : 8) + 64);
    output.dims.resize(size_t(desc.rank));
    output.elementType = desc.element_type;
    void *data = output.storage.data();
    size_t space = output.storage.size();
    output.data = std::align(64, 1, data, space);
  }
  return model;
}

LoadedModel::~LoadedModel() {
  if (instance_)
    library_->destroy(instance_);
  library_.reset();
  std::error_code error;
  if (!directory_.empty())
    fs::remove_all(directory_, error);
}

int32_t LoadedModel::numInputs() const { return library_->numInputs(); }

cuvil_tensor_desc LoadedModel::input(int32_t i) const {
  cuvil_tensor_desc desc{};
  library_->input(i, &desc);
  return desc;
}

Status LoadedModel::run(const std::vector<const runtime::HostTensor *> &inputs) {
  std::vector<const void *> inputData;
  std::vector<const int64_t *> dims;
  for (const runtime::HostTensor *tensor : inputs) {
    inputData.push_back(tensor->data());
    dims.push_back(tensor->shape().data());
  }
  std::vector<void *> data;
  std::vector<int64_t *> outputDims;
  for (Output &output : outputs_) {
    data.push_back(output.data);
    outputDims.push_back(output.dims.data());
  }
  if (library_->run(instance_, inputData.data(), dims.data(), data.data(), outputDims.data()) !=
      CUVIL_OK)
    return Status::error(library_->lastError(instance_));
  return Status::success();
}

int64_t LoadedModel::outputElements(size_t i) const {
  int64_t count = 1;
  for (int64_t dim : outputs_[i].dims)
    count *= dim;
  return count;
}

} // namespace cuvil
