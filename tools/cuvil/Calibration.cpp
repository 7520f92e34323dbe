#include "Calibration.h"

#include "DType.h"
#include "LoadedModel.h"
#include "cuvil/passes/Pipeline.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace cuvil {
namespace {

constexpr int64_t kHistogramBins = 2048;

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

Status checkSample(const LoadedModel &model, const CalibrationSample &sample) {
  for (int32_t i = 0; i < model.numInputs(); ++i) {
    cuvil_tensor_desc desc = model.input(i);
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
Status runSamples(LoadedModel &model, const std::vector<CalibrationSample> &samples,
                  std::vector<Observed> &observed, bool histogram) {
  for (const CalibrationSample &sample : samples) {
    CUVIL_TRY(model.run(sampleInputs(sample))
                  .withContext(fmt::format("calibration sample {}", sample.name)));
    for (Observed &o : observed)
      fold(o, static_cast<const float *>(model.outputData(o.output)),
           model.outputElements(o.output), histogram);
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

  Expected<std::unique_ptr<LoadedModel>> model = LoadedModel::compile(graph, "calibration");
  CUVIL_TRY(model.status());
  for (const CalibrationSample &sample : samples)
    CUVIL_TRY(checkSample(**model, sample));
  CUVIL_TRY(runSamples(**model, samples, observed, /*histogram=*/false));
  if (settings.method == CalibrationMethod::Percentile) {
    for (Observed &o : observed)
      o.histogram.assign(kHistogramBins, 0);
    CUVIL_TRY(runSamples(**model, samples, observed, /*histogram=*/true));
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
