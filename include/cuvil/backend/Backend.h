// The LLVM backend: turns planned graphs (every value typed, every
// intermediate given storage by the memory planner) into an LLVM module, an
// object file, and finally a static executable linked with the runtime, or
// a library with a C API.
//
// One executable holds one or more code paths of the same model: the
// generic graph, whose dims may be symbolic, and static graphs of it
// compiled at fixed symbol values (the OPT shape), which run when the
// inputs have exactly those values.
#pragma once

#include "cuvil/backend/Target.h"
#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

#include <string>

namespace cuvil {

enum class EmitKind { Executable, StaticLibrary, SharedLibrary, Object, Assembly, LLVMIR };

struct BackendOptions {
  TargetConfig target;
  EmitKind emit = EmitKind::Executable;
  // A library's is DIR/NAME: DIR/libNAME.a or .so and DIR/NAME.h.
  std::string outputPath;
  // Keep intermediate files (model.o, weights.o) next to the output.
  bool keepTemporaries = false;
  // Weights in a section of the output that the runtime maps at start-up
  // instead of loaded data (always so from kLoadedWeightsLimit on).
  bool mapWeights = false;
  // Threads that optimise and emit the module's parts (0: one per CPU).
  unsigned jobs = 0;
};

// Where `--emit lib|shared --output DIR/NAME` puts the library and its
// header; NAME, a C identifier, prefixes the API (NAME_create).
struct LibraryOutput {
  std::string directory;
  std::string name;
  bool shared = false;

  std::string libraryPath() const; // DIR/libNAME.a or .so
  std::string headerPath() const;  // DIR/NAME.h
};

Expected<LibraryOutput> parseLibraryOutput(const std::string &output, bool shared);

struct CodePath {
  const Graph *graph;
  std::string name; // "static", "generic"
  // The value of each of the generic graph's input symbols (its first
  // symbols, in order: those computed from data come after them) this path
  // serves; empty for the generic graph itself.
  std::vector<int64_t> symbolValues;
};

struct PathStats {
  std::string name;
  uint64_t arenaBytes = 0;
  size_t kernelCalls = 0; // kernel invocations in one inference
};

struct BackendStats {
  std::string cpu;         // the variants compiled (TargetConfig::cpu of those the model uses)
  uint64_t arenaBytes = 0; // shared by the paths: the largest
  uint64_t weightsBytes = 0;
  bool weightsMapped = false; // in a section mapped at start-up (BackendOptions::mapWeights)
  std::vector<PathStats> paths;
  size_t specialisations = 0; // distinct specialised kernels generated
  double buildSeconds = 0;
  // Summed over the module's parts, which compile on codegenThreads
  // threads in codegenWallSeconds (with the weights object).
  double optimiseSeconds = 0;
  double codegenSeconds = 0;
  size_t codegenParts = 1;
  unsigned codegenThreads = 1;
  double codegenWallSeconds = 0;
  double linkSeconds = 0;
};

// `paths` holds `model` (the generic graph) and any static paths, in the
// order the executable tries them: static ones first.
Status compileToOutput(const Graph &model, const std::vector<CodePath> &paths,
                       const BackendOptions &options, BackendStats &stats);

} // namespace cuvil
