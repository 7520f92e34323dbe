#include "CommandLine.h"

#include <charconv>
#include <stdexcept>
#include <string_view>

namespace cuvil::runtime {
namespace {

// Bounds that keep absurd values from turning into huge allocations or thread
// counts; both are far beyond any sensible use.
constexpr uint64_t kMaxRuns = 100'000'000;
constexpr uint64_t kMaxThreads = 4096;

uint64_t parseCount(std::string_view option, std::string_view text, uint64_t min, uint64_t max) {
  uint64_t value;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
    throw std::runtime_error(std::string(option) + " needs a whole number from " +
                             std::to_string(min) + " to " + std::to_string(max) + ", got '" +
                             std::string(text) + "'");
  return value;
}

} // namespace

Options parseCommandLine(int argc, const char *const *argv) {
  Options options;
  bool warmupGiven = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      return options;
    }
    if (arg == "--json") {
      options.json = true;
      continue;
    }
    if (arg == "--info") {
      options.info = true;
      continue;
    }
    if (arg == "--profile") {
      options.profile = true;
      continue;
    }

    // The remaining options take a value, as "--opt VALUE" or "--opt=VALUE".
    std::string_view option = arg;
    std::optional<std::string_view> value;
    if (size_t eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      option = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    if (option != "--input" && option != "--output-dir" && option != "--bench" &&
        option != "--warmup" && option != "--threads")
      throw std::runtime_error("unknown argument '" + std::string(arg) + "'");
    if (!value) {
      if (i + 1 == argc)
        throw std::runtime_error(std::string(option) + " needs a value");
      value = argv[++i];
    }
    if (value->empty())
      throw std::runtime_error(std::string(option) + " needs a non-empty value");

    auto once = [&](bool alreadySet) {
      if (alreadySet)
        throw std::runtime_error(std::string(option) + " given more than once");
    };
    if (option == "--input") {
      size_t eq = value->find('=');
      if (eq == std::string_view::npos)
        options.inputs.push_back({"", std::string(*value)});
      else if (eq == 0 || eq + 1 == value->size())
        throw std::runtime_error("--input '" + std::string(*value) +
                                 "' needs the form NAME=FILE or FILE");
      else
        options.inputs.push_back(
            {std::string(value->substr(0, eq)), std::string(value->substr(eq + 1))});
    } else if (option == "--output-dir") {
      once(options.outputDir.has_value());
      options.outputDir = std::string(*value);
    } else if (option == "--bench") {
      once(options.benchRuns.has_value());
      options.benchRuns = parseCount(option, *value, 1, kMaxRuns);
    } else if (option == "--warmup") {
      once(warmupGiven);
      warmupGiven = true;
      options.warmupRuns = parseCount(option, *value, 0, kMaxRuns);
    } else {
      once(options.threads.has_value());
      options.threads = unsigned(parseCount(option, *value, 1, kMaxThreads));
    }
  }

  if (warmupGiven && !options.benchRuns)
    throw std::runtime_error("--warmup only applies to --bench");
  if (options.info && (!options.inputs.empty() || options.outputDir || options.benchRuns))
    throw std::runtime_error("--info only describes the model; it cannot be combined with "
                             "--input, --output-dir or --bench");
  if (options.json && !options.info && !options.benchRuns)
    throw std::runtime_error("--json applies to --info and --bench");
  if (options.profile && (!options.benchRuns || options.json))
    throw std::runtime_error("--profile applies to --bench without --json");
  return options;
}

std::string usage(const char *program) {
  return "usage: " + std::string(program) +
         " --input NAME=FILE [--input NAME=FILE ...] [options]\n"
         "       " +
         program +
         " --info [--json]\n"
         "\n"
         "Runs the compiled model. Input files are .npy or ONNX TensorProto .pb files;\n"
         "their dtype and shape must match the model exactly. A model with one input\n"
         "also accepts --input FILE.\n"
         "\n"
         "options:\n"
         "  --input NAME=FILE  tensor for the model input NAME\n"
         "  --output-dir DIR   write every output to DIR/<name>.npy (characters outside\n"
         "                     [A-Za-z0-9._-] in <name> become '_')\n"
         "  --bench N          time N runs after the warm-up runs and print latency\n"
         "                     statistics (outputs of the first run go to --output-dir)\n"
         "  --warmup W         warm-up runs before timing (default 5)\n"
         "  --json             print --bench or --info results as one JSON object\n"
         "  --threads N        threads for parallel operators (default: CPUs available)\n"
         "  --profile          with --bench: time every kernel call and print where the\n"
         "                     time goes (adds a clock read per call)\n"
         "  --info             describe the model, its inputs and outputs\n"
         "  --help             show this text\n"
         "\n"
         "Without --bench or --output-dir, runs once and prints a summary of each output.\n";
}

} // namespace cuvil::runtime
