// What `cuvil compile` reads and what decides what it writes: the model and
// its external data (for --depfile and the cache key), the options that
// change the outputs, and the outputs a compile cache entry holds.
#pragma once

#include "CachedCompile.h"
#include "cuvil/backend/Backend.h"
#include "cuvil/backend/Target.h"

#include <optional>
#include <string>
#include <vector>

namespace cuvil {

// A field that changes the output must go into cacheKeyArguments as well.
struct CompileOptions {
  std::string target = "x86_64-linux";
  std::string cpu;
  std::string input;
  std::string output;
  std::string emit = "exe";
  std::vector<std::string> shapes;
  std::vector<std::string> shapeRanges;
  std::vector<std::string> values, valueRanges;
  std::vector<std::string> sequences, absent;
  std::vector<std::string> printAfter;
  bool printAfterAll = false;
  bool keepTemporaries = false;
  unsigned jobs = 0; // 0: one thread per CPU
  bool noWinograd = false;
  bool mapWeights = false;
  bool printCpuModel = false;
  bool quiet = false;
  std::string precision = "fp32";
  std::string calibration, calibrationMethod = "minmax";
  double percentile = 99.99;
  std::string accuracyBudget, report; // --precision auto's
  std::string depfile;
  CacheOptions cache;
};

// The model, every external data file it references and the files of the
// calibration set.
Expected<std::vector<std::string>> compileInputs(const CompileOptions &options);

// A Make rule "OUTPUTS: INPUTS...", so that a build system (CMake's DEPFILE,
// a Makefile's -include) rebuilds when any input changes.
std::string depfileRule(const CompileOptions &options, const std::optional<LibraryOutput> &library,
                        const std::vector<std::string> &inputs);

// exe, lib or shared: an output the cache can hold.
bool isFinalOutput(const std::string &emit);

// Compiles that write a final output to a file, without debugging output
// or a --report (which only a compile writes), go through the cache.
bool usesCache(const CompileOptions &options);

// Everything but the inputs' bytes that decides the outputs.
std::vector<std::string> cacheKeyArguments(const CompileOptions &options,
                                           const TargetConfig &target,
                                           const std::optional<LibraryOutput> &library);

// What decides calibrated ranges besides the inputs' bytes: the method and
// the options that shape the graph.
std::vector<std::string> rangesKeyArguments(const CompileOptions &options);

// Where a compile keeps its calibrated ranges: next to its output.
std::string rangesPath(const CompileOptions &options, const std::optional<LibraryOutput> &library);

// Writes a text output (`-`: standard output) through a temporary file
// renamed over it, so that a reader sees the old file or the whole new one.
Status writeText(const std::string &path, const std::string &text);

// The outputs, named as in a cache entry.
std::vector<CachedFile> cachedFiles(const CompileOptions &options,
                                    const std::optional<LibraryOutput> &library);

} // namespace cuvil
