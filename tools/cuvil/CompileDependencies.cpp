#include "CompileDependencies.h"

#include "CalibrationSet.h"
#include "cuvil/frontend/ExternalDataFiles.h"
#include "cuvil/target/CpuModel.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace cuvil {

Expected<std::vector<std::string>> compileInputs(const CompileOptions &options) {
  Expected<std::vector<std::string>> external = externalDataFiles(options.input);
  CUVIL_TRY(external.status());
  std::vector<std::string> inputs = {options.input};
  inputs.insert(inputs.end(), external->begin(), external->end());
  if (!options.calibration.empty()) {
    Expected<std::vector<std::string>> samples = calibrationFiles(options.calibration);
    CUVIL_TRY(samples.status());
    inputs.insert(inputs.end(), samples->begin(), samples->end());
  }
  return inputs;
}

std::string depfileRule(const CompileOptions &options, const std::optional<LibraryOutput> &library,
                        const std::vector<std::string> &inputs) {
  auto escape = [](const std::string &path) {
    std::string text;
    for (char c : path) {
      if (c == ' ' || c == '#' || c == '\\')
        text += '\\';
      if (c == '$')
        text += '$';
      text += c;
    }
    return text;
  };
  std::vector<std::string> targets, sources;
  if (library)
    targets = {escape(library->libraryPath()), escape(library->headerPath())};
  else
    targets = {escape(options.output)};
  for (const std::string &file : inputs)
    sources.push_back(escape(file));
  return fmt::format("{}: {}\n", fmt::join(targets, " "), fmt::join(sources, " \\\n  "));
}

bool isFinalOutput(const std::string &emit) {
  return emit == "exe" || emit == "lib" || emit == "shared";
}

bool usesCache(const CompileOptions &options) {
  return !options.cache.disabled && !options.cache.directory.empty() &&
         isFinalOutput(options.emit) && options.output != "-" && !options.keepTemporaries &&
         options.printAfter.empty() && !options.printAfterAll && options.report.empty();
}

// Everything but the model's bytes that decides the outputs: the resolved
// target and each variant's CPU model (so `--cpu native` keys on this
// machine's), the options the pipeline and backend read, and a library's
// name (its symbols and header carry it).
std::vector<std::string> cacheKeyArguments(const CompileOptions &options,
                                           const TargetConfig &target,
                                           const std::optional<LibraryOutput> &library) {
  std::vector<std::string> arguments = {"target " + target.name, "cpu " + target.cpu,
                                        "emit " + options.emit};
  for (const IsaVariant &variant : target.variants)
    arguments.push_back(
        fmt::format("variant {} {}", variant.name, describeCpuModel(variant.cpuModel)));
  std::vector<std::string> graphArguments = rangesKeyArguments(options);
  arguments.insert(arguments.end(), graphArguments.begin(), graphArguments.end());
  arguments.push_back("precision " + options.precision);
  if (!options.accuracyBudget.empty())
    arguments.push_back("accuracy-budget " + options.accuracyBudget);
  if (options.noWinograd)
    arguments.push_back("no-winograd");
  if (options.mapWeights)
    arguments.push_back("map-weights");
  if (library)
    arguments.push_back("library " + library->name);
  return arguments;
}

std::vector<std::string> rangesKeyArguments(const CompileOptions &options) {
  std::vector<std::string> arguments;
  for (const auto &[flag, values] : {std::pair{"shape", &options.shapes},
                                     {"shape-range", &options.shapeRanges},
                                     {"value", &options.values},
                                     {"value-range", &options.valueRanges},
                                     {"sequence", &options.sequences},
                                     {"absent", &options.absent}})
    for (const std::string &value : *values)
      arguments.push_back(fmt::format("{} {}", flag, value));
  if (!options.calibration.empty())
    arguments.push_back(fmt::format("calibration-method {} percentile {}",
                                    options.calibrationMethod, options.percentile));
  return arguments;
}

std::string rangesPath(const CompileOptions &options, const std::optional<LibraryOutput> &library) {
  if (library)
    return (std::filesystem::path(library->directory) / (library->name + ".ranges")).string();
  return options.output + ".ranges";
}

std::vector<CachedFile> cachedFiles(const CompileOptions &options,
                                    const std::optional<LibraryOutput> &library) {
  if (!library)
    return {{"infer.bin", options.output}};
  return {
      {std::filesystem::path(library->libraryPath()).filename().string(), library->libraryPath()},
      {library->name + ".h", library->headerPath()}};
}

Status writeText(const std::string &path, const std::string &text) {
  if (path == "-") {
    std::cout << text;
    return Status::success();
  }
  // A temporary file renamed over the target, as for every output.
  std::string temporary = fmt::format("{}.tmp.{}", path, ::getpid());
  std::ofstream out(temporary);
  out << text;
  out.close();
  std::error_code error;
  if (out)
    std::filesystem::rename(temporary, path, error);
  if (!out || error) {
    std::filesystem::remove(temporary, error);
    return Status::error(fmt::format("cannot write {}", path));
  }
  return Status::success();
}

} // namespace cuvil
