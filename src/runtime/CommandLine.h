#ifndef CUVIL_RUNTIME_COMMANDLINE_H
#define CUVIL_RUNTIME_COMMANDLINE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cuvil::runtime {

/// One --input argument: NAME=FILE, or just FILE (empty name) for a model
/// with a single input.
struct InputArg {
  std::string name;
  std::string path;
};

/// The options of infer.bin, checked for everything that does not depend on
/// the model.
struct Options {
  std::vector<InputArg> inputs;
  std::optional<std::string> outputDir;
  std::optional<uint64_t> benchRuns;
  uint64_t warmupRuns = 5;
  std::optional<unsigned> threads;
  bool json = false;
  bool profile = false;
  bool info = false;
  bool help = false;
};

/// Parses argv. Throws std::runtime_error describing the first bad argument.
Options parseCommandLine(int argc, const char *const *argv);

/// The --help text.
std::string usage(const char *program);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_COMMANDLINE_H
