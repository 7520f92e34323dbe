#include "Driver.h"

#include "BenchStats.h"
#include "Clock.h"
#include "CommandLine.h"
#include "FloatEnvironment.h"
#include "Frame.h"
#include "Inputs.h"
#include "Isa.h"
#include "ModelWeights.h"
#include "Outputs.h"
#include "Profiler.h"
#include "Report.h"
#include "ThreadPool.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cuvil::runtime {
namespace {

// One inference; a check of the data that fails (cuvil_model_info.errors)
// becomes an error with its message, the offending value at "{}".
void runOnce(const cuvil_model_info &model, ModelRunFn runModel, FrameMemory &frame,
             std::vector<void *> &inputs, std::vector<void *> &outputs,
             std::vector<int64_t> &symbols) {
  int64_t value = 0;
  prepareRun(frame);
  int32_t status = runModel(frame.frame, inputs.data(), outputs.data(), symbols.data(), &value);
  if (status == 0)
    return;
  if (status < 0 || uint32_t(status) > model.num_errors)
    throw std::runtime_error("the model's run failed with unknown status " +
                             std::to_string(status));
  std::string message = model.errors[status - 1];
  size_t hole = message.find("{}");
  if (hole != std::string::npos)
    message.replace(hole, 2, std::to_string(value));
  throw std::runtime_error(message);
}

// A benchmark's runs must all compute run 0's outputs: kernels have no
// hidden state and split work the same way every run. Throws naming the
// output and the first byte that differs.
void checkSameOutputs(const cuvil_model_info &model, const std::vector<HostTensor> &outputs,
                      const std::vector<std::string> &first, uint64_t run) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    // Numbers compare in place; strings by their text (not where it lies).
    std::string strings =
        outputs[i].dtype() == CUVIL_DTYPE_STRING ? outputs[i].contents() : std::string();
    std::string_view now = outputs[i].dtype() == CUVIL_DTYPE_STRING
                               ? std::string_view(strings)
                               : std::string_view(reinterpret_cast<const char *>(outputs[i].data()),
                                                  outputs[i].byteSize());
    if (now == first[i])
      continue;
    size_t byte = 0;
    while (byte < now.size() && byte < first[i].size() && now[byte] == first[i][byte])
      ++byte;
    throw std::runtime_error("run " + std::to_string(run) + " computed output '" +
                             model.outputs[i].name + "' unlike run 0 (from byte " +
                             std::to_string(byte) + "): the results are not stable");
  }
}

int run(int argc, const char *const *argv, const cuvil_model_info &model, ModelRunFn runModel) {
  // Checked before anything else reads the struct, whose layout it versions.
  if (model.abi_version != CUVIL_ABI_VERSION)
    throw std::runtime_error("the model was compiled for runtime ABI version " +
                             std::to_string(model.abi_version) + ", but this runtime implements " +
                             std::to_string(CUVIL_ABI_VERSION));
  Options options = parseCommandLine(argc, argv);
  if (options.help) {
    std::fputs(usage(argc > 0 ? argv[0] : "infer.bin").c_str(), stdout);
    return 0;
  }
  if (options.info) {
    printModelInfo(stdout, model, options.json);
    return 0;
  }

  checkIsaSupport(model);
  std::vector<HostTensor> inputs = loadInputs(options.inputs, model);
  std::vector<int64_t> symbols = bindSymbols(model, inputs);
  std::vector<HostTensor> outputs = allocateOutputs(model);
  std::vector<std::string> inputPaths;
  for (const InputArg &arg : options.inputs)
    inputPaths.push_back(arg.path);
  std::vector<void *> inputPtrs, outputPtrs;
  for (HostTensor &tensor : inputs)
    inputPtrs.push_back(tensor.data());
  for (HostTensor &tensor : outputs)
    outputPtrs.push_back(tensor.data());
  unsigned threads = options.threads.value_or(availableCpus());
  ThreadPool pool(threads);
  if (pool.startError())
    throw std::runtime_error("cannot start " + std::to_string(threads - 1) +
                             " worker threads: " + std::strerror(pool.startError()));
  char reason[1024];
  const void *weights = modelWeights(model, reason, sizeof reason);
  if (!weights)
    throw std::runtime_error(reason);
  FrameMemory frameMemory;
  if (int error = allocateFrame(model, &pool, weights, frameMemory))
    throw std::runtime_error("cannot allocate the model's working memory (arena of " +
                             std::to_string(model.arena_bytes) +
                             " bytes): " + std::strerror(error));
  struct Release {
    FrameMemory &memory;
    ~Release() { releaseFrame(memory); }
  } release{frameMemory};
  flushSubnormalsToZero(); // the pool's workers do the same

  if (!options.benchRuns) {
    runOnce(model, runModel, frameMemory, inputPtrs, outputPtrs, symbols);
    setOutputShapes(model, symbols, outputs);
    if (options.outputDir)
      writeOutputs(*options.outputDir, model, outputs, inputPaths);
    else
      printOutputSummary(stdout, model, outputs);
    return 0;
  }

  uint64_t totalRuns = options.warmupRuns + *options.benchRuns;
  // Run 0's outputs, which every later run must reproduce bit for bit
  // (unless the model draws random numbers: each run draws anew).
  std::vector<std::string> firstOutputs;
  std::vector<double> samplesMs;
  samplesMs.reserve(*options.benchRuns);
  const cuvil_path_info &path = selectPath(model, symbols);
  if (options.profile)
    Profiler::enable(path.num_kernel_calls);
  for (uint64_t i = 0; i < totalRuns; ++i) {
    if (options.profile && i == options.warmupRuns)
      Profiler::reset();
    int64_t start = monotonicNs();
    runOnce(model, runModel, frameMemory, inputPtrs, outputPtrs, symbols);
    int64_t elapsedNs = monotonicNs() - start;
    if (i >= options.warmupRuns)
      samplesMs.push_back(double(elapsedNs) * 1e-6);
    // Written between runs so that the file I/O stays out of every sample.
    if (i == 0) {
      setOutputShapes(model, symbols, outputs);
      if (options.outputDir)
        writeOutputs(*options.outputDir, model, outputs, inputPaths);
      for (const HostTensor &tensor : outputs)
        firstOutputs.push_back(tensor.contents());
    } else if (!model.draws_random) {
      checkSameOutputs(model, outputs, firstOutputs, i);
    }
  }
  printBenchReport(stdout, model, path, computeBenchStats(std::move(samplesMs)), options.warmupRuns,
                   threads, options.json);
  if (options.profile)
    Profiler::print(stdout, path, *options.benchRuns);
  return 0;
}

} // namespace

int runInfer(int argc, const char *const *argv, const cuvil_model_info &model,
             ModelRunFn runModel) {
  try {
    int status = run(argc, argv, model, runModel);
    // Report a full disk or closed pipe instead of exiting 0 with lost output.
    if (std::fflush(stdout) != 0)
      throw std::runtime_error(std::string("cannot write to standard output: ") +
                               std::strerror(errno));
    return status;
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "error: out of memory\n");
  } catch (const std::exception &error) {
    std::fprintf(stderr, "error: %s\n", error.what());
  }
  return 1;
}

} // namespace cuvil::runtime
