#include "PrecisionRanges.h"

#include "CompileCache.h"
#include "cuvil/passes/Pipeline.h"

#include <chrono>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace cuvil {

Expected<std::string>
loadOrMeasureRanges(const CompileOptions &options, const std::optional<LibraryOutput> &library,
                    const ImportOptions &importOptions, const Graph &graph,
                    std::span<const PassInfo *const> before, std::span<const PassInfo *const> after,
                    const CalibrationSettings &calibration, PassContext &context) {
  Expected<std::vector<std::string>> inputs = compileInputs(options);
  CUVIL_TRY(inputs.status());
  // The values to measure join the key: the target's CPU model and
  // --no-winograd change which convolutions are candidates.
  std::vector<std::string> keyArguments = rangesKeyArguments(options);
  for (const Value *value : valuesToCalibrate(graph, context))
    keyArguments.push_back("value " + value->name());
  Expected<std::string> key = CompileCache::key(keyArguments, *inputs);
  CUVIL_TRY(key.status());
  // An output to standard output (--emit cir -o -) keeps no ranges file.
  const std::string path = options.output == "-" ? "" : rangesPath(options, library);
  if (std::ifstream in(path); !path.empty() && in) {
    std::stringstream text;
    text << in.rdbuf();
    Expected<RangesFile> cached = parseRanges(text.str());
    if (cached && cached->key == *key) {
      context.precision.ranges = std::move(cached->ranges);
      return fmt::format("from {}", path);
    }
  }
  auto start = std::chrono::steady_clock::now();
  Expected<std::unique_ptr<Graph>> copy = importOnnxModel(options.input, importOptions);
  CUVIL_TRY(copy.status());
  PassContext measuring = context;
  PipelineOptions quiet;
  CUVIL_TRY(runPasses(**copy, before, measuring, quiet));
  std::vector<std::string> inputNames;
  for (const Value *input : (*copy)->inputs())
    inputNames.push_back(input->name());
  Expected<std::vector<CalibrationSample>> samples =
      readCalibrationSet(calibration.directory, inputNames);
  CUVIL_TRY(samples.status());
  Expected<CalibrationRanges> ranges = calibrate(**copy, after, measuring, *samples, calibration);
  CUVIL_TRY(ranges.status());
  context.precision.ranges = *ranges;
  std::string measured =
      fmt::format("calibrated on {} samples in {:.1f} s", samples->size(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (path.empty())
    return measured;
  CUVIL_TRY(writeText(path, formatRanges({*key, std::move(*ranges)})));
  return fmt::format("{}, kept in {}", measured, path);
}

} // namespace cuvil
