// cuvil: the command-line compiler.
//   cuvil compile --target x86_64-linux --input model.onnx --output infer.bin
//   cuvil opt --passes=a,b file.cir     (runs passes on textual IR; lit tests)
#include "CachedCompile.h"
#include "CompileDependencies.h"
#include "PrecisionOptions.h"
#include "PrecisionRanges.h"
#include "PrecisionSearch.h"
#include "cuvil/backend/Backend.h"
#include "cuvil/backend/Version.h"
#include "cuvil/frontend/OnnxImporter.h"
#include "cuvil/ir/Parser.h"
#include "cuvil/ir/Printer.h"
#include "cuvil/ir/Verifier.h"
#include "cuvil/ops/AllOps.h"
#include "cuvil/passes/Pipeline.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <spdlog/spdlog.h>
#include <sstream>
#include <unistd.h>

namespace {

using namespace cuvil;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string humanBytes(uint64_t bytes) {
  if (bytes < (1 << 20))
    return fmt::format("{:.1f} KiB", double(bytes) / (1 << 10));
  return fmt::format("{:.1f} MiB", double(bytes) / (1 << 20));
}

int fail(const Status &status) {
  std::cerr << "error: " << status.message() << "\n";
  return 1;
}

// "1x3x224x224" (of the option `text`, for messages).
Expected<std::vector<int64_t>> parseDims(const std::string &dimsText, const std::string &option,
                                         const std::string &text) {
  std::vector<int64_t> shape;
  std::stringstream dims(dimsText);
  std::string dim;
  while (std::getline(dims, dim, 'x')) {
    char *end = nullptr;
    long long value = std::strtoll(dim.c_str(), &end, 10);
    if (dim.empty() || *end || value < 0)
      return Status::error(fmt::format("{} '{}': '{}' is not a dimension", option, text, dim));
    shape.push_back(value);
  }
  return shape;
}

// "name=1x3x224x224"
Status parseShapeOption(const std::string &text, ImportOptions &options) {
  size_t equals = text.rfind('=');
  if (equals == std::string::npos || equals == 0)
    return Status::error(
        fmt::format("--shape '{}' is not NAME=DIMS (e.g. input=1x3x224x224)", text));
  Expected<std::vector<int64_t>> dims = parseDims(text.substr(equals + 1), "--shape", text);
  CUVIL_TRY(dims.status());
  options.inputShapes[text.substr(0, equals)] = Shape(dims->begin(), dims->end());
  return Status::success();
}

// The ':'-separated parts after the '=' of "name=a:b:c" (none without a
// name); `equals` gets the '=' position.
std::vector<std::string> rangeParts(const std::string &text, size_t &equals) {
  equals = text.rfind('=');
  std::vector<std::string> parts;
  if (equals == std::string::npos || equals == 0)
    return parts;
  std::stringstream stream(text.substr(equals + 1));
  std::string part;
  while (std::getline(stream, part, ':'))
    parts.push_back(part);
  return parts;
}

// "name=1x8:1x128:4x512"
Status parseShapeRangeOption(const std::string &text, ImportOptions &options) {
  size_t equals;
  std::vector<std::string> parts = rangeParts(text, equals);
  if (parts.size() != 3)
    return Status::error(fmt::format(
        "--shape-range '{}' is not NAME=MIN:OPT:MAX (e.g. input_ids=1x8:1x128:4x512)", text));
  ShapeRange range;
  std::vector<int64_t> *bounds[] = {&range.min, &range.opt, &range.max};
  for (size_t i = 0; i < 3; ++i) {
    Expected<std::vector<int64_t>> dims = parseDims(parts[i], "--shape-range", text);
    CUVIL_TRY(dims.status());
    *bounds[i] = *dims;
  }
  std::string name = text.substr(0, equals);
  if (options.inputShapes.count(name))
    return Status::error(fmt::format("input '{}' has both --shape and --shape-range", name));
  options.inputRanges[name] = range;
  return Status::success();
}

// "3,-1,4" (of the option `text`, for messages): the numbers as reals, and
// as integers into `integers` when every one is written as an integer.
Expected<std::vector<double>> parseValues(const std::string &valuesText, const std::string &option,
                                          const std::string &text, std::vector<int64_t> &integers,
                                          bool &integral) {
  std::vector<double> reals;
  integers.clear();
  integral = true;
  if (valuesText.empty()) // an input of no elements (axes=)
    return reals;
  std::stringstream stream(valuesText);
  std::string value;
  while (std::getline(stream, value, ',')) {
    char *end = nullptr;
    errno = 0;
    long long parsed = std::strtoll(value.c_str(), &end, 10);
    integral = integral && !value.empty() && !*end && errno != ERANGE;
    if (integral)
      integers.push_back(parsed);
    errno = 0;
    double real = std::strtod(value.c_str(), &end);
    if (value.empty() || *end || errno == ERANGE)
      return Status::error(fmt::format("{} '{}': '{}' is not a number", option, text, value));
    reals.push_back(real);
  }
  return reals;
}

// "name=3,4" (--value) or "name=1,4:3,4:8,4" (--value-range).
Status parseValueOption(const std::string &text, bool ranged, ImportOptions &options) {
  const char *option = ranged ? "--value-range" : "--value";
  size_t equals;
  std::vector<std::string> parts = rangeParts(text, equals);
  if (!ranged && parts.empty() && equals != std::string::npos && equals != 0)
    parts.push_back(""); // "axes=": no elements
  if (parts.size() != (ranged ? 3u : 1u))
    return Status::error(fmt::format("{} '{}' is not {}", option, text,
                                     ranged ? "NAME=MIN:OPT:MAX (e.g. shape=1,4:3,4:8,4)"
                                            : "NAME=V,V,... (e.g. axes=0,2)"));
  ValueRange range;
  std::vector<int64_t> *bounds[] = {&range.min, &range.opt, &range.max};
  for (size_t i = 0; i < 3; ++i) {
    bool integral;
    Expected<std::vector<double>> reals =
        parseValues(parts[ranged ? i : 0], option, text, *bounds[i], integral);
    CUVIL_TRY(reals.status());
    if (ranged && !integral)
      return Status::error(
          fmt::format("{} '{}': a range takes integers (an integer input's values)", option, text));
    range.reals = *reals;
    range.integral = integral;
  }
  if (ranged)
    range.reals.clear();
  range.ranged = ranged;
  std::string name = text.substr(0, equals);
  if (!options.inputValues.emplace(name, range).second)
    return Status::error(
        fmt::format("input '{}' has more than one --value or --value-range", name));
  return Status::success();
}

// "name=3x4,2x4" (--sequence): each element's dims, "scalar" for a scalar;
// "name=" is an empty sequence.
Status parseSequenceOption(const std::string &text, ImportOptions &options) {
  size_t equals = text.rfind('=');
  if (equals == std::string::npos || equals == 0)
    return Status::error(
        fmt::format("--sequence '{}' is not NAME=DIMS,DIMS,... (e.g. boxes=4x2,3x2)", text));
  std::vector<Shape> shapes;
  std::stringstream stream(text.substr(equals + 1));
  std::string element;
  while (std::getline(stream, element, ',')) {
    if (element == "scalar") {
      shapes.emplace_back();
      continue;
    }
    Expected<std::vector<int64_t>> dims = parseDims(element, "--sequence", text);
    CUVIL_TRY(dims.status());
    if (dims->empty())
      return Status::error(fmt::format(
          "--sequence '{}': an element has no dims (write 'scalar' for a scalar)", text));
    shapes.emplace_back(dims->begin(), dims->end());
  }
  if (!options.inputSequences.emplace(text.substr(0, equals), std::move(shapes)).second)
    return Status::error(
        fmt::format("input '{}' has more than one --sequence", text.substr(0, equals)));
  return Status::success();
}

// The ranged inputs fixed at their OPT shapes and values, for the static
// path.
ImportOptions atOptShapes(const ImportOptions &options) {
  ImportOptions fixed = options;
  fixed.inputRanges.clear();
  for (const auto &[name, range] : options.inputRanges)
    fixed.inputShapes[name] = Shape(range.opt.begin(), range.opt.end());
  for (auto &[name, range] : fixed.inputValues)
    range.min = range.max = range.opt;
  return fixed;
}

int runCompile(const CompileOptions &options) {
  static const std::map<std::string, EmitKind> kEmitKinds = {
      {"exe", EmitKind::Executable},       {"lib", EmitKind::StaticLibrary},
      {"shared", EmitKind::SharedLibrary}, {"obj", EmitKind::Object},
      {"asm", EmitKind::Assembly},         {"llvm", EmitKind::LLVMIR}};
  bool emitCir = options.emit == "cir";
  if (!emitCir && !kEmitKinds.count(options.emit))
    return fail(Status::error(fmt::format(
        "--emit {} is not one of cir, llvm, asm, obj, exe, lib, shared", options.emit)));
  if (isFinalOutput(options.emit) && options.output == "-")
    return fail(Status::error(fmt::format(
        "--output - (standard output) takes --emit cir, llvm, asm or obj, not --emit {}",
        options.emit)));
  ImportOptions importOptions;
  for (const std::string &shape : options.shapes)
    if (Status status = parseShapeOption(shape, importOptions); !status.ok())
      return fail(status);
  for (const std::string &range : options.shapeRanges)
    if (Status status = parseShapeRangeOption(range, importOptions); !status.ok())
      return fail(status);
  for (const std::string &value : options.values)
    if (Status status = parseValueOption(value, /*ranged=*/false, importOptions); !status.ok())
      return fail(status);
  for (const std::string &range : options.valueRanges)
    if (Status status = parseValueOption(range, /*ranged=*/true, importOptions); !status.ok())
      return fail(status);
  for (const std::string &sequence : options.sequences)
    if (Status status = parseSequenceOption(sequence, importOptions); !status.ok())
      return fail(status);
  importOptions.absentInputs.insert(options.absent.begin(), options.absent.end());
  Expected<TargetConfig> target = resolveTarget(options.target, options.cpu);
  if (!target)
    return fail(target.status());
  if (options.printCpuModel) {
    for (const IsaVariant &variant : target->variants)
      std::cout << fmt::format("variant {}: ", variant.name) << describeCpuModel(variant.cpuModel);
    if (options.input.empty())
      return 0;
  }
  if (options.input.empty() || options.output.empty())
    return fail(Status::error("--input and --output are required"));
  // A library's name is checked before the compile, not after.
  std::optional<LibraryOutput> library;
  if (options.emit == "lib" || options.emit == "shared") {
    Expected<LibraryOutput> parsed = parseLibraryOutput(options.output, options.emit == "shared");
    if (!parsed)
      return fail(parsed.status());
    library = *parsed;
  }
  Expected<uint64_t> cacheBytes = parseByteSize(options.cache.maxSize);
  if (!cacheBytes)
    return fail(cacheBytes.status().withContext("--cache-max-size"));
  Expected<PrecisionSettings> precision = precisionSettings(options);
  if (!precision)
    return fail(precision.status());
  const PrecisionPolicy policy = precision->policy;
  // The model, its external data and the calibration set, listed once for
  // the depfile and the cache key (a model that cannot be read is the
  // import's to report).
  Expected<std::vector<std::string>> inputs = compileInputs(options);
  if (!options.depfile.empty()) {
    if (!inputs)
      return fail(inputs.status().withContext(options.input));
    if (Status status = writeText(options.depfile, depfileRule(options, library, *inputs));
        !status.ok())
      return fail(status);
  }
  std::optional<CachedCompile> cached;
  if (inputs && usesCache(options))
    cached.emplace(options.cache.directory, *cacheBytes, *inputs,
                   cacheKeyArguments(options, *target, library), cachedFiles(options, library));
  if (cached && cached->begin()) {
    if (!options.quiet)
      std::cout << fmt::format("cuvil: {} -> {} (from the cache {})\n", options.input,
                               options.output, cached->directory());
    return 0;
  }
  PipelineOptions pipelineOptions;
  for (const std::string &pass : options.printAfter) {
    if (!findPass(pass))
      return fail(Status::error(fmt::format("--print-after: no pass named '{}' (passes: {})", pass,
                                            fmt::join(passNames(), ", "))));
    pipelineOptions.printAfter.insert(pass);
  }
  pipelineOptions.printAfterAll = options.printAfterAll;
  pipelineOptions.printStream = &std::cerr;

  auto start = Clock::now();
  Expected<std::unique_ptr<Graph>> graph = importOnnxModel(options.input, importOptions);
  if (!graph)
    return fail(graph.status().withContext(options.input));
  double importSeconds = secondsSince(start);
  size_t importedNodes = (*graph)->nodes().size();

  start = Clock::now();
  std::vector<const PassInfo *> passes;
  for (const PassInfo &pass : defaultPipeline())
    passes.push_back(&pass);
  PassContext context;
  context.cpu = target->cpuModel();
  context.winograd = !options.noWinograd;
  context.precision.policy = policy;
  context.precision.weights = {127, false};
  for (const IsaVariant &variant : target->variants)
    context.precision.weights =
        combine(context.precision.weights, weightBoundFor(variant.cpuModel));
  // Ranges are measured on the graph as assign-precision sees it.
  auto assign = std::find_if(passes.begin(), passes.end(),
                             [](const PassInfo *pass) { return pass->name == "assign-precision"; });
  std::span<const PassInfo *const> before(passes.begin(), assign), after(assign, passes.end());
  if (Status status = runPasses(**graph, before, context, pipelineOptions); !status.ok())
    return fail(status.withContext(options.input));
  std::string rangesSource;
  if (quantizesFromRanges(policy)) {
    Expected<std::string> source = loadOrMeasureRanges(
        options, library, importOptions, **graph, before, after, precision->calibration, context);
    if (!source)
      return fail(source.status().withContext(options.input));
    rangesSource = *source;
  }
  std::string precisionFront;
  if (policy == PrecisionPolicy::Auto) {
    Expected<std::string> front =
        choosePrecision(options, importOptions, before, after, precision->budget, context);
    if (!front)
      return fail(front.status().withContext(options.input));
    precisionFront = *front;
  }
  if (Status status = runPasses(**graph, after, context, pipelineOptions); !status.ok())
    return fail(status.withContext(options.input));

  if (emitCir)
    return writeText(options.output, printGraph(**graph)).ok() ? 0 : 1;

  // With symbolic dims, the OPT shape gets a fully static path of its own:
  // the same model imported at that shape and compiled as any static one.
  std::vector<CodePath> paths;
  std::unique_ptr<Graph> staticGraph;
  PassContext staticContext = context;
  // (Symbols computed from data are left to the run, on every path.)
  std::vector<int64_t> optValues;
  for (SymbolId symbol : (*graph)->symbols())
    if (!SymbolTable::global().info(symbol).fromData)
      optValues.push_back(SymbolTable::global().info(symbol).opt);
  if (!optValues.empty()) {
    Expected<std::unique_ptr<Graph>> atOpt =
        importOnnxModel(options.input, atOptShapes(importOptions));
    if (!atOpt)
      return fail(atOpt.status().withContext(options.input));
    staticGraph = atOpt.take();
    PipelineOptions quiet;
    if (Status status = runPasses(*staticGraph, passes, staticContext, quiet); !status.ok())
      return fail(status.withContext(fmt::format("{} (static path)", options.input)));
    paths.push_back({staticGraph.get(), "static", optValues});
    paths.push_back({graph->get(), "generic", {}});
  } else {
    paths.push_back({graph->get(), "static", {}});
  }
  double passSeconds = secondsSince(start);

  BackendOptions backendOptions;
  backendOptions.target = *target;
  backendOptions.emit = kEmitKinds.at(options.emit);
  backendOptions.outputPath = options.output;
  backendOptions.keepTemporaries = options.keepTemporaries;
  backendOptions.jobs = options.jobs;
  backendOptions.mapWeights = options.mapWeights;
  BackendStats stats;
  if (Status status = compileToOutput(**graph, paths, backendOptions, stats); !status.ok())
    return fail(status.withContext(options.input));
  if (cached)
    cached->finish();

  if (!options.quiet) {
    std::cout << fmt::format("cuvil: {} -> {} ({}, cpu {})\n", options.input, options.output,
                             target->name, stats.cpu);
    std::cout << fmt::format("  graph: {} ONNX nodes -> {} ops, {} specialised kernels\n",
                             importedNodes, (*graph)->nodes().size(), stats.specialisations);
    for (const Graph *path : {staticGraph.get(), graph->get()}) {
      if (!path)
        continue;
      bool generic = path == graph->get() && staticGraph;
      const PassContext &pathContext = generic || !staticGraph ? context : staticContext;
      const PathStats &pathStats = stats.paths[generic ? 1 : 0];
      const MemoryPlanStats &memory = pathContext.memory;
      std::cout << fmt::format(
          "  {} path{}: {} kernel calls, arena {} ({:.2f}x the max-live "
          "lower bound {}; intermediates {})\n",
          pathStats.name,
          generic       ? " (at MAX)"
          : staticGraph ? " (at OPT)"
                        : "",
          pathStats.kernelCalls, humanBytes(memory.arenaBytes),
          double(memory.arenaBytes) / double(std::max<uint64_t>(memory.maxLiveBytes, 1)),
          humanBytes(memory.maxLiveBytes), humanBytes(memory.intermediateBytes));
    }
    if (quantizesFromRanges(policy))
      std::cout << fmt::format(
          "  precision: {}, {} of {} Conv/MatMul on integer kernels (ranges {})\n{}",
          options.precision, context.precisionStats.quantized, context.precisionStats.quantizable,
          rangesSource, precisionFront);
    else if (policy == PrecisionPolicy::FP16Weights || policy == PrecisionPolicy::BF16)
      std::cout << fmt::format("  precision: {}, {} of {} MatMul weights in {} (Conv "
                               "weights stay f32)\n",
                               options.precision, context.precisionStats.quantized,
                               context.precisionStats.quantizable,
                               policy == PrecisionPolicy::BF16 ? "bf16" : "f16");
    std::cout << fmt::format("  memory: arena {}, weights {}{}\n", humanBytes(stats.arenaBytes),
                             humanBytes(stats.weightsBytes),
                             stats.weightsMapped ? " (mapped from the file at start-up)" : "");
    std::cout << fmt::format(
        "  time: import {:.2f} s, passes {:.2f} s, build {:.2f} s, optimise {:.2f} s + codegen "
        "{:.2f} s in {} part{} on {} thread{}: {:.2f} s, link {:.2f} s\n",
        importSeconds, passSeconds, stats.buildSeconds, stats.optimiseSeconds, stats.codegenSeconds,
        stats.codegenParts, stats.codegenParts == 1 ? "" : "s", stats.codegenThreads,
        stats.codegenThreads == 1 ? "" : "s", stats.codegenWallSeconds, stats.linkSeconds);
  }
  return 0;
}

struct OptOptions {
  std::string input = "-";
  std::string output = "-";
  std::string passes;
  std::string cpu = "x86-64-v4"; // the default target's widest variant, as `compile` has it
  std::string precision = "fp32";
  std::string ranges;                  // a ranges file, for assign-precision
  std::vector<std::string> int8Layers; // under auto: PrecisionOptions::layers
  std::string switches;                // addQuantizationSwitches' input, before the passes
};

int runOpt(const OptOptions &options) {
  std::stringstream text;
  if (options.input == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in(options.input);
    if (!in)
      return fail(Status::error(fmt::format("cannot read {}", options.input)));
    text << in.rdbuf();
  }
  Expected<std::unique_ptr<Graph>> graph = parseGraph(text.str());
  if (!graph)
    return fail(graph.status().withContext(options.input));
  if (Status status = verifyGraph(**graph, VerifyOptions{/*requireTypes=*/false}); !status.ok())
    return fail(status.withContext(options.input));
  std::vector<const PassInfo *> passes;
  std::stringstream names(options.passes);
  std::string name;
  while (std::getline(names, name, ',')) {
    if (name.empty())
      continue;
    const PassInfo *pass = findPass(name);
    if (!pass)
      return fail(Status::error(
          fmt::format("no pass named '{}' (passes: {})", name, fmt::join(passNames(), ", "))));
    passes.push_back(pass);
  }
  Expected<CpuModel> cpu = compiledCpuModel(options.cpu);
  if (!cpu)
    return fail(cpu.status());
  PassContext context;
  context.cpu = *cpu;
  Expected<PrecisionPolicy> policy = parsePrecisionPolicy(options.precision);
  if (!policy)
    return fail(policy.status());
  context.precision.policy = *policy;
  context.precision.weights = weightBoundFor(*cpu);
  if (!options.ranges.empty()) {
    std::ifstream in(options.ranges);
    std::stringstream rangesText;
    rangesText << in.rdbuf();
    Expected<RangesFile> ranges = parseRanges(rangesText.str());
    if (!in || !ranges)
      return fail(
          (in ? ranges.status() : Status::error("cannot read it")).withContext(options.ranges));
    context.precision.ranges = std::move(ranges->ranges);
  }
  if (*policy == PrecisionPolicy::Auto)
    context.precision.layers.emplace(options.int8Layers.begin(), options.int8Layers.end());
  if (!options.switches.empty())
    if (Expected<std::vector<SwitchedLayer>> layers =
            addQuantizationSwitches(**graph, context, options.switches);
        !layers)
      return fail(layers.status());
  PipelineOptions pipelineOptions;
  if (Status status = runPasses(**graph, passes, context, pipelineOptions); !status.ok())
    return fail(status);
  if (!writeText(options.output, printGraph(**graph)).ok())
    return 1;
  if (context.memory.arenaBytes)
    std::cerr << fmt::format("memory: arena {} intermediates {} max-live {}\n",
                             context.memory.arenaBytes, context.memory.intermediateBytes,
                             context.memory.maxLiveBytes);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  spdlog::set_level(spdlog::level::warn);
  registerAllOps();
  CLI::App app{"cuvil: ahead-of-time compiler from ONNX models to standalone executables"};
  app.require_subcommand(1);
  app.set_version_flag("--version", compilerVersion());

  CompileOptions compile;
  CLI::App *compileCommand = app.add_subcommand("compile", "compile an ONNX model");
  compileCommand->add_option("--target", compile.target, "target (x86_64-linux, aarch64-linux)")
      ->capture_default_str();
  compileCommand->add_option(
      "--cpu", compile.cpu,
      "CPU to optimise for (default: the target's variants, x86-64-v4 + x86-64-v3 or SVE + "
      "NEON; an LLVM CPU name; 'native' = this machine)");
  compileCommand->add_option("--input,-i", compile.input, "ONNX model (required)");
  compileCommand->add_option("--output,-o", compile.output,
                             "output file ('-' = stdout for text; required)");
  compileCommand->add_option("--shape", compile.shapes,
                             "fix an input's shape: NAME=1x3x224x224 (repeatable)");
  compileCommand->add_option("--shape-range", compile.shapeRanges,
                             "let an input's shape vary: NAME=MIN:OPT:MAX, e.g. "
                             "input_ids=1x8:1x128:4x512; OPT gets a static path (repeatable)");
  compileCommand->add_option("--value", compile.values,
                             "fix the values of an input (a shape, axes, pads, Resize's "
                             "scales): NAME=V,V,...; infer.bin refuses others (repeatable)");
  compileCommand->add_option("--value-range", compile.valueRanges,
                             "let the values of an integer input that are extents vary: "
                             "NAME=MIN:OPT:MAX, each a V,V,... list, e.g. shape=1,4:3,4:8,4 "
                             "(repeatable)");
  compileCommand->add_option("--sequence", compile.sequences,
                             "the elements of a sequence input: NAME=DIMS,DIMS,... (e.g. "
                             "boxes=4x2,3x2; 'scalar' for a scalar); it takes one input per "
                             "element, NAME.0, NAME.1, ... (repeatable)");
  compileCommand->add_option("--absent", compile.absent,
                             "compile an optional input as empty: NAME (repeatable)");
  compileCommand->add_option("--emit", compile.emit,
                             "what to write: exe (default), lib (--output DIR/NAME: "
                             "DIR/libNAME.a + DIR/NAME.h), shared (DIR/libNAME.so + "
                             "DIR/NAME.h), or stop early: cir, llvm, asm, obj");
  compileCommand->add_option("--print-after", compile.printAfter,
                             "print the IR after PASS to stderr");
  compileCommand->add_flag("--print-after-all", compile.printAfterAll,
                           "print the IR after every pass");
  compileCommand->add_option("--precision", compile.precision,
                             "fp32 (default: as the model has it), int8 (Conv and MatMul "
                             "with constant weights on integer kernels; needs --calibration) "
                             "auto (int8 for the layers that keep the outputs within "
                             "--accuracy-budget on the calibration set), fp16-weights "
                             "(MatMul weights stored in f16, computed in f32) or bf16 "
                             "(MatMul weights in bf16, multiplied in bf16 with f32 sums where "
                             "the CPU has AVX512_BF16, widened to f32 elsewhere)");
  compileCommand->add_option("--accuracy-budget", compile.accuracyBudget,
                             "with --precision auto: the relative L2 error of the outputs "
                             "allowed against FP32 on the calibration set, e.g. 1% or 0.01");
  compileCommand->add_option("--report", compile.report,
                             "with --precision auto: write the layers' sensitivities and the "
                             "explored assignments (error, INT8 share, estimated latency) "
                             "as JSON to FILE");
  compileCommand->add_option("--calibration", compile.calibration,
                             "calibration set: one folder per sample holding NAME.npy or "
                             "NAME.pb per input (or test_data_set_N/input_K.pb); the ranges "
                             "measured are kept next to the output (OUTPUT.ranges)");
  compileCommand->add_option("--calibration-method", compile.calibrationMethod,
                             "minmax (default), percentile or entropy (KL)");
  compileCommand->add_option("--percentile", compile.percentile,
                             "the percentile the percentile method keeps at each end (99.99)");
  compileCommand->add_flag("--no-winograd", compile.noWinograd,
                           "direct convolution only (bit-closer to the reference, slower)");
  compileCommand->add_flag("--map-weights", compile.mapWeights,
                           "keep the weights in a section of the output that is mapped at "
                           "start-up, not loaded with the program (always so from 2 GiB on, "
                           "which loaded data cannot reach)");
  compileCommand->add_flag("--keep-temps", compile.keepTemporaries,
                           "keep the objects (model.N.o, weights.o) next to the output");
  compileCommand->add_option("--jobs,-j", compile.jobs,
                             "threads that optimise and emit the model's code (default: one per "
                             "CPU); the output is the same for any count");
  compileCommand->add_flag("--print-cpu-model", compile.printCpuModel,
                           "print the CPU model each ISA variant is tuned for (and stop, "
                           "without --input)");
  compileCommand->add_flag("--quiet,-q", compile.quiet, "print nothing on success");
  compileCommand->add_option("--depfile", compile.depfile,
                             "write a Make rule: the outputs depend on the model and its "
                             "external data files (for CMake's DEPFILE, Make's -include)");
  compileCommand->add_option("--cache-dir", compile.cache.directory,
                             "the compile cache (default $XDG_CACHE_HOME/cuvil or "
                             "~/.cache/cuvil): an unchanged model with the same options is "
                             "copied from it");
  compileCommand->add_flag("--no-cache", compile.cache.disabled, "compile without the cache");
  compileCommand->add_option("--cache-max-size", compile.cache.maxSize,
                             "evict least recently used entries beyond this size (5G)");

  CacheOptions cacheOptions;
  std::string cacheAction;
  CLI::App *cacheCommand =
      app.add_subcommand("cache", "the compile cache: stats, clear, or prune to --max-size");
  cacheCommand->add_option("action", cacheAction, "stats | clear | prune")->required();
  cacheCommand->add_option("--cache-dir", cacheOptions.directory, "the cache directory");
  cacheCommand->add_option("--max-size", cacheOptions.maxSize, "prune's bound (5G)");

  OptOptions opt;
  CLI::App *optCommand = app.add_subcommand("opt", "run passes on textual IR (for tests)");
  optCommand->add_option("input", opt.input, "IR file ('-' = stdin)");
  optCommand->add_option("-o", opt.output, "output file ('-' = stdout)");
  optCommand->add_option("--passes", opt.passes, "comma-separated pass names (none: round trip)");
  optCommand
      ->add_option(
          "--cpu", opt.cpu,
          fmt::format("the CPU model passes tune for ({})", fmt::join(knownCpuModels(), ", ")))
      ->capture_default_str();
  optCommand->add_option("--precision", opt.precision, "assign-precision's policy (fp32)");
  optCommand->add_option("--ranges", opt.ranges, "assign-precision's ranges file");
  optCommand->add_option("--int8-layers", opt.int8Layers,
                         "with --precision auto: the layers (by result name) to quantize");
  optCommand->add_option("--quantization-switches", opt.switches,
                         "before the passes, give every layer with ranges a run-time switch "
                         "to its INT8 arithmetic: a bool input named NAME (--precision auto's "
                         "search graph)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &error) {
    int code = app.exit(error);
    return code == 0 ? 0 : 1;
  }
  if (*compileCommand)
    return runCompile(compile);
  if (*cacheCommand)
    return runCacheCommand(cacheAction, cacheOptions);
  return runOpt(opt);
}
