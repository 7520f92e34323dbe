#include "PrecisionSearch.h"

#include "LoadedModel.h"
#include "cuvil/passes/Pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <numeric>

namespace cuvil {
namespace {

constexpr const char *kSwitches = "cuvil.int8_layers";
// The integer kernels' multiply-accumulate peak over FP32 FMA's at the same
// vector width: vpmaddubsw + vpmaddwd take 32 byte products in two
// multiplies where FMA takes 8 floats in one (VNNI would double it; no
// variant uses it yet).
constexpr double kInt8PeakRatio = 2.0;

// The model's float outputs for one assignment, sample after sample.
using Outputs = std::vector<std::vector<float>>;

struct Runner {
  LoadedModel &model;
  const std::vector<CalibrationSample> &samples;
  size_t layers;
  size_t modelOutputs; // the model's own outputs come first

  Expected<Outputs> run(const std::vector<bool> &on) {
    runtime::HostTensor switches(CUVIL_BOOL, {int64_t(layers)});
    for (size_t i = 0; i < layers; ++i)
      reinterpret_cast<uint8_t *>(switches.data())[i] = on[i] ? 1 : 0;
    Outputs outputs;
    for (const CalibrationSample &sample : samples) {
      CUVIL_TRY(model.run(sampleInputs(sample, {&switches}))
                    .withContext(fmt::format("calibration sample {}", sample.name)));
      for (size_t o = 0; o < modelOutputs; ++o) {
        if (model.outputType(o) != CUVIL_FLOAT32)
          continue;
        const float *data = static_cast<const float *>(model.outputData(o));
        outputs.emplace_back(data, data + model.outputElements(o));
      }
    }
    return outputs;
  }
};

double relativeError(const Outputs &reference, const Outputs &value) {
  double difference = 0, magnitude = 0;
  for (size_t i = 0; i < reference.size(); ++i)
    for (size_t j = 0; j < reference[i].size(); ++j) {
      double d = double(value[i][j]) - reference[i][j];
      difference += d * d;
      magnitude += double(reference[i][j]) * reference[i][j];
    }
  return magnitude > 0 ? std::sqrt(difference / magnitude) : std::sqrt(difference);
}

struct Step {
  size_t int8Layers;
  double error, macShare, latency;
};

std::string jsonString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20)
      out += fmt::format("\\u{:04x}", int(c));
    else
      out += c;
  }
  return out + "\"";
}

std::string reportJson(const std::vector<SwitchedLayer> &layers,
                       const std::vector<double> &sensitivity, const std::vector<size_t> &order,
                       const std::vector<Step> &front, size_t chosen, double budget) {
  std::vector<std::string> layerRows, frontRows;
  for (size_t rank = 0; rank < order.size(); ++rank) {
    const SwitchedLayer &layer = layers[order[rank]];
    layerRows.push_back(fmt::format("    {{\"name\": {}, \"op\": {}, \"multiply_accumulates\": "
                                    "{:.0f}, \"sensitivity\": {:.6g}}}",
                                    jsonString(layer.name), jsonString(layer.op),
                                    layer.multiplyAccumulates, sensitivity[order[rank]]));
  }
  for (const Step &step : front)
    frontRows.push_back(fmt::format("    {{\"int8_layers\": {}, \"error\": {:.6g}, "
                                    "\"int8_mac_share\": {:.4f}, \"estimated_latency\": {:.4f}}}",
                                    step.int8Layers, step.error, step.macShare, step.latency));
  return fmt::format(
      "{{\n  \"metric\": \"relative L2 error of the float outputs on the calibration set\",\n"
      "  \"budget\": {:.6g},\n  \"estimated_latency\": \"Conv/MatMul time relative to FP32, INT8 "
      "at {}x FP32's multiply-accumulate peak\",\n"
      "  \"layers\": [\n{}\n  ],\n  \"front\": [\n{}\n  ],\n  \"chosen\": {}\n}}\n",
      budget, kInt8PeakRatio, fmt::join(layerRows, ",\n"), fmt::join(frontRows, ",\n"), chosen);
}

} // namespace

Expected<double> parseAccuracyBudget(std::string_view text) {
  std::string number(text);
  bool percent = !number.empty() && number.back() == '%';
  if (percent)
    number.pop_back();
  char *end = nullptr;
  double value = std::strtod(number.c_str(), &end);
  if (number.empty() || *end || !std::isfinite(value))
    return Status::error(fmt::format("--accuracy-budget {} is not a number or a percentage", text));
  if (percent)
    value /= 100;
  if (!(value >= 0 && value <= 1))
    return Status::error(fmt::format("--accuracy-budget {} is not within 0..100%", text));
  return value;
}

Expected<std::string> choosePrecision(const CompileOptions &options,
                                      const ImportOptions &importOptions,
                                      std::span<const PassInfo *const> before,
                                      std::span<const PassInfo *const> after, double budget,
                                      PassContext &context) {
  auto start = std::chrono::steady_clock::now();
  Expected<std::unique_ptr<Graph>> imported = importOnnxModel(options.input, importOptions);
  CUVIL_TRY(imported.status());
  Graph &graph = **imported;
  PassContext measuring = context;
  PipelineOptions quiet;
  CUVIL_TRY(runPasses(graph, before, measuring, quiet));
  std::vector<std::string> inputNames;
  for (const Value *input : graph.inputs())
    inputNames.push_back(input->name());
  Expected<std::vector<CalibrationSample>> samples =
      readCalibrationSet(options.calibration, inputNames);
  CUVIL_TRY(samples.status());
  const size_t modelOutputs = graph.outputs().size();
  const double totalMacs = convMatMulMultiplyAccumulates(graph);
  Expected<std::vector<SwitchedLayer>> switched =
      addQuantizationSwitches(graph, measuring, kSwitches);
  CUVIL_TRY(switched.status().withContext("accuracy search"));
  const std::vector<SwitchedLayer> &layers = *switched;
  if (layers.empty()) { // nothing to choose: no compile, no runs
    context.precision.layers.emplace();
    if (!options.report.empty())
      CUVIL_TRY(writeText(options.report, reportJson({}, {}, {}, {{0, 0.0, 0.0, 1.0}}, 0, budget)));
    return std::string("  accuracy search: no layer the integer kernels would run\n");
  }
  PassContext fp32 = measuring;
  fp32.precision = {};
  CUVIL_TRY(runPasses(graph, after, fp32, quiet).withContext("accuracy search"));
  Expected<std::unique_ptr<LoadedModel>> model = LoadedModel::compile(graph, "accuracy search");
  CUVIL_TRY(model.status());
  Runner runner{**model, *samples, layers.size(), modelOutputs};

  const size_t n = layers.size();
  Expected<Outputs> reference = runner.run(std::vector<bool>(n, false));
  CUVIL_TRY(reference.status());
  std::vector<double> sensitivity(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<bool> on(n, false);
    on[i] = true;
    Expected<Outputs> outputs = runner.run(on);
    CUVIL_TRY(outputs.status());
    sensitivity[i] = relativeError(*reference, *outputs);
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sensitivity[a] < sensitivity[b]; });
  std::vector<Step> front = {{0, 0.0, 0.0, 1.0}};
  std::vector<bool> on(n, false);
  double int8Macs = 0;
  size_t chosen = 0;
  for (size_t k = 1; k <= n; ++k) {
    on[order[k - 1]] = true;
    int8Macs += layers[order[k - 1]].multiplyAccumulates;
    Expected<Outputs> outputs = runner.run(on);
    CUVIL_TRY(outputs.status());
    double share = totalMacs > 0 ? int8Macs / totalMacs : 0;
    front.push_back(
        {k, relativeError(*reference, *outputs), share, 1 - share * (1 - 1 / kInt8PeakRatio)});
    if (front.back().error > budget)
      break;
    chosen = k;
  }

  std::set<std::string> chosenLayers;
  for (size_t k = 0; k < chosen; ++k)
    chosenLayers.insert(layers[order[k]].name);
  context.precision.layers = std::move(chosenLayers);
  if (!options.report.empty())
    CUVIL_TRY(
        writeText(options.report, reportJson(layers, sensitivity, order, front, chosen, budget)));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string table = fmt::format(
      "  accuracy search: {} layers, {} samples, {:.1f} s; relative L2 error of the float "
      "outputs, budget {:.4g}\n"
      "    int8 layers | error     | int8 MAC share | est. latency\n",
      n, samples->size(), seconds, budget);
  for (const Step &step : front)
    table += fmt::format("    {:>11} | {:<9.3g} | {:>14.1f}% | {:>11.3f}{}\n", step.int8Layers,
                         step.error, step.macShare * 100, step.latency,
                         step.int8Layers == chosen ? "  <- chosen"
                         : step.error > budget     ? "  (over budget)"
                                                   : "");
  return table;
}

} // namespace cuvil
