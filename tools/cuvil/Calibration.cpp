#include "Calibration.h"

#include "DType.h"
#include "LoadedModel.h"
#include "cuvil/passes/CalibrationHistogram.h"
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
  CalibrationHistogram histogram;
  // Exact zeros left out of the histogram (entropy: every candidate range
  // represents zero exactly, and ReLU's spike of zeros would otherwise
  // decide the divergence, favouring the narrowest range).
  bool histogramSkipsZeros = false;
};

int64_t histogramBin(float value, const CalibrationHistogram &h) {
  double position = (double(value) - h.low) / (h.high - h.low) * double(h.counts.size());
  return std::clamp<int64_t>(int64_t(position), 0, int64_t(h.counts.size()) - 1);
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
  CalibrationHistogram &h = o.histogram;
  if (!(h.high > h.low))
    return;
  for (int64_t i = 0; i < count; ++i)
    if (std::isfinite(data[i]) && !(o.histogramSkipsZeros && data[i] == 0))
      ++h.counts[size_t(histogramBin(data[i], h))];
}

// The bins the second run counts in: [min, max] for the percentile method;
// for entropy, widened to take in zero, which its candidate ranges keep
// (assign-precision's quantization always represents zero).
CalibrationHistogram histogramBounds(const Observed &o, CalibrationMethod method) {
  if (method == CalibrationMethod::Entropy)
    return {std::min(o.min, 0.0f), std::max(o.max, 0.0f), std::vector<uint64_t>(kHistogramBins, 0)};
  return {o.min, o.max, std::vector<uint64_t>(kHistogramBins, 0)};
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
  if (text == "entropy")
    return CalibrationMethod::Entropy;
  return Status::error(
      fmt::format("--calibration-method {} is not one of minmax, percentile, entropy", text));
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
  if (settings.method != CalibrationMethod::MinMax) {
    for (Observed &o : observed) {
      o.histogram = histogramBounds(o, settings.method);
      o.histogramSkipsZeros = settings.method == CalibrationMethod::Entropy;
    }
    CUVIL_TRY(runSamples(**model, samples, observed, /*histogram=*/true));
  }

  CalibrationRanges ranges;
  for (const Observed &o : observed) {
    if (!(o.min <= o.max)) // no finite element: left in FP32
      continue;
    switch (settings.method) {
    case CalibrationMethod::MinMax:
      ranges[o.name] = {o.min, o.max};
      break;
    case CalibrationMethod::Percentile:
      ranges[o.name] = percentileRange(o.histogram, settings.percentile);
      break;
    case CalibrationMethod::Entropy:
      ranges[o.name] = entropyRange(o.histogram);
      break;
    }
  }
  return ranges;
}

} // namespace cuvil
