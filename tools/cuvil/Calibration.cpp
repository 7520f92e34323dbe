#include "Calibration.h"

#include "DType.h"
#include "cuvil/backend/Backend.h"
#include "cuvil/passes/Pipeline.h"
#include "cuvil/runtime/ModelApi.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fmt/format.h>

namespace cuvil {
namespace {

namespace fs = std::filesystem;

constexpr const char *kLibraryName = "calibration";
constexpr int64_t kHistogramBins = 2048;

// A directory removed with everything in it when the scope ends.
class ScratchDirectory {
public:
  ScratchDirectory() {
    std::string pattern = (fs::temp_directory_path() / "cuvil-calibration-XXXXXX").string();
    if (mkdtemp(pattern.data()))
      path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code error;
    if (!path_.empty())
      fs::remove_all(path_, error);
  }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

// The C API of the calibration library (include/cuvil/runtime/ModelApi.h,
// its functions prefixed with the library's name).
struct ModelLibrary {
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

  ModelLibrary() = default;
  ModelLibrary(const ModelLibrary &) = delete;
  ~ModelLibrary() {
    if (handle)
      dlclose(handle);
  }
};

template <typename Fn> Status resolve(ModelLibrary &library, const char *suffix, Fn &fn) {
  std::string name = fmt::format("{}_{}", kLibraryName, suffix);
  fn = reinterpret_cast<Fn>(dlsym(library.handle, name.c_str()));
  if (!fn)
    return Status::error(fmt::format("the calibration library lacks {}", name));
  return Status::success();
}

Status load(ModelLibrary &library, const std::string &path) {
  library.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library.handle)
    return Status::error(fmt::format("cannot load the calibration library: {}", dlerror()));
  CUVIL_TRY(resolve(library, "num_inputs", library.numInputs));
  CUVIL_TRY(resolve(library, "num_outputs", library.numOutputs));
  CUVIL_TRY(resolve(library, "input", library.input));
  CUVIL_TRY(resolve(library, "output", library.output));
  CUVIL_TRY(resolve(library, "create", library.create));
  CUVIL_TRY(resolve(library, "destroy", library.destroy));
  CUVIL_TRY(resolve(library, "run", library.run));
  return resolve(library, "last_error", library.lastError);
}

// One value's statistics over every sample.
struct Observed {
  std::string name;
  size_t output; // its output of the calibration library
  float min = INFINITY, max = -INFINITY;
  std::vector<uint64_t> histogram;
};

int64_t histogramBin(float value, const Observed &o) {
  double position = (double(value) - o.min) / (double(o.max) - o.min) * kHistogramBins;
  return std::clamp<int64_t>(int64_t(position), 0, kHistogramBins - 1);
}

void fold(Observed &o, const float *data, int64_t count, bool histogram) {
  if (!histogram) {
    for (int64_t i = 0; i < count; ++i)
      if (std::isfinite(data[i])) {
        o.min = std::min(o.min, data[i]);
        o.max = std::max(o.max, data[i]);
      }
    return;
  }
  if (!(o.max > o.min))
    return;
  for (int64_t i = 0; i < count; ++i)
    if (std::isfinite(data[i]))
      ++o.histogram[size_t(histogramBin(data[i], o))];
}

// [min, max] clipped to the `percentile` of the elements at each end.
CalibratedRange percentileRange(const Observed &o, double percentile) {
  uint64_t total = 0;
  for (uint64_t count : o.histogram)
    total += count;
  if (total == 0 || !(o.max > o.min))
    return {o.min, o.max};
  const double tail = double(total) * (1.0 - percentile / 100.0);
  const double width = (double(o.max) - o.min) / kHistogramBins;
  int64_t low = 0, high = kHistogramBins - 1;
  for (double below = 0; low < high && below + double(o.histogram[low]) <= tail; ++low)
    below += double(o.histogram[low]);
  for (double above = 0; high > low && above + double(o.histogram[high]) <= tail; --high)
    above += double(o.histogram[high]);
  return {float(o.min + low * width), float(o.min + (high + 1) * width)};
}

struct Buffers {
  std::vector<std::vector<std::byte>> storage;
  std::vector<void *> pointers;
  std::vector<std::vector<int64_t>> dims;
  std::vector<int64_t *> dimPointers;
};

Expected<Buffers> outputBuffers(const ModelLibrary &library) {
  Buffers buffers;
  int32_t count = library.numOutputs();
  buffers.storage.resize(size_t(count));
  buffers.dims.resize(size_t(count));
  for (int32_t i = 0; i < count; ++i) {
    cuvil_tensor_desc desc{};
    if (library.output(i, &desc) != CUVIL_OK)
      return Status::error("the calibration library does not describe its outputs");
    const runtime::DTypeInfo *type = runtime::findDType(desc.element_type);
    int64_t elements = 1;
    for (int32_t d = 0; d < desc.rank; ++d)
      elements *= desc.max_dims[d];
    // 64 bytes to spare, so that the data can start 64-byte aligned.
    buffers.storage[size_t(i)].resize(size_t(elements) * (type ? type->size : 8) + 64);
    buffers.dims[size_t(i)].resize(size_t(desc.rank));
  }
  for (size_t i = 0; i < buffers.storage.size(); ++i) {
    void *data = buffers.storage[i].data();
    size_t space = buffers.storage[i].size();
    buffers.pointers.push_back(std::align(64, 1, data, space));
    buffers.dimPointers.push_back(buffers.dims[i].data());
  }
  return buffers;
}

Status checkSample(const ModelLibrary &library, const CalibrationSample &sample) {
  for (int32_t i = 0; i < library.numInputs(); ++i) {
    cuvil_tensor_desc desc{};
    library.input(i, &desc);
    const runtime::HostTensor &tensor = sample.inputs[size_t(i)];
    if (tensor.dtype() != desc.element_type)
      return Status::error(fmt::format(
          "calibration sample {}: input '{}' is {}, the model takes {}", sample.name, desc.name,
          runtime::dtypeName(tensor.dtype()), runtime::dtypeName(desc.element_type)));
    if (int32_t(tensor.shape().size()) != desc.rank)
      return Status::error(
          fmt::format("calibration sample {}: input '{}' has rank {}, the model takes rank {}",
                      sample.name, desc.name, tensor.shape().size(), desc.rank));
  }
  return Status::success();
}

// Runs every sample, folding each observed value into its statistics.
Status runSamples(const ModelLibrary &library, cuvil_instance *instance,
                  const std::vector<CalibrationSample> &samples, std::vector<Observed> &observed,
                  bool histogram) {
  Expected<Buffers> outputs = outputBuffers(library);
  CUVIL_TRY(outputs.status());
  for (const CalibrationSample &sample : samples) {
    std::vector<const void *> inputs;
    std::vector<const int64_t *> inputDims;
    for (const runtime::HostTensor &tensor : sample.inputs) {
      inputs.push_back(tensor.data());
      inputDims.push_back(tensor.shape().data());
    }
    if (library.run(instance, inputs.data(), inputDims.data(), outputs->pointers.data(),
                    outputs->dimPointers.data()) != CUVIL_OK)
      return Status::error(
          fmt::format("calibration sample {}: {}", sample.name, library.lastError(instance)));
    for (Observed &o : observed) {
      int64_t count = 1;
      for (int64_t dim : outputs->dims[o.output])
        count *= dim;
      fold(o, static_cast<const float *>(outputs->pointers[o.output]), count, histogram);
    }
  }
  return Status::success();
}

} // namespace

Expected<CalibrationMethod> parseCalibrationMethod(std::string_view text) {
  if (text == "minmax")
    return CalibrationMethod::MinMax;
  if (text == "percentile")
    return CalibrationMethod::Percentile;
  return Status::error(
      fmt::format("--calibration-method {} is not one of minmax, percentile", text));
}

Expected<CalibrationRanges> calibrate(Graph &graph, std::span<const PassInfo *const> rest,
                                      const PassContext &context,
                                      const std::vector<CalibrationSample> &samples,
                                      const CalibrationSettings &settings) {
  std::vector<Observed> observed;
  for (const Value *value : valuesToCalibrate(graph, context)) {
    observed.push_back({value->name(), graph.outputs().size(), INFINITY, -INFINITY, {}});
    graph.addOutput(const_cast<Value *>(value), fmt::format("calibrated.{}", observed.size()));
  }
  if (observed.empty())
    return CalibrationRanges{};
  PassContext fp32 = context;
  fp32.precision = {};
  PipelineOptions quiet;
  CUVIL_TRY(runPasses(graph, rest, fp32, quiet).withContext("calibration"));

  // The library runs here: it is built for this machine, whatever the target.
  ScratchDirectory scratch;
  if (scratch.path().empty())
    return Status::error("calibration: cannot make a temporary directory");
  Expected<TargetConfig> host = resolveTarget("x86_64-linux", "native");
  CUVIL_TRY(host.status());
  BackendOptions options;
  options.target = *host;
  options.emit = EmitKind::SharedLibrary;
  options.outputPath = (fs::path(scratch.path()) / kLibraryName).string();
  BackendStats stats;
  bool symbolic = !graph.symbols().empty();
  CUVIL_TRY(compileToOutput(graph, {{&graph, symbolic ? "generic" : "static", {}}}, options, stats)
                .withContext("calibration"));
  ModelLibrary library;
  CUVIL_TRY(load(library, (fs::path(scratch.path()) / "libcalibration.so").string()));
  for (const CalibrationSample &sample : samples)
    CUVIL_TRY(checkSample(library, sample));
  cuvil_instance *instance = nullptr;
  if (library.create(&instance) != CUVIL_OK)
    return Status::error(fmt::format("calibration: {}", library.lastError(nullptr)));
  std::unique_ptr<cuvil_instance, void (*)(cuvil_instance *)> owner(instance, library.destroy);
  CUVIL_TRY(runSamples(library, instance, samples, observed, /*histogram=*/false));
  if (settings.method == CalibrationMethod::Percentile) {
    for (Observed &o : observed)
      o.histogram.assign(kHistogramBins, 0);
    CUVIL_TRY(runSamples(library, instance, samples, observed, /*histogram=*/true));
  }

  CalibrationRanges ranges;
  for (const Observed &o : observed) {
    if (!(o.min <= o.max)) // no finite element: left in FP32
      continue;
    ranges[o.name] = settings.method == CalibrationMethod::Percentile
                         ? percentileRange(o, settings.percentile)
                         : CalibratedRange{o.min, o.max};
  }
  return ranges;
}

} // namespace cuvil
