// The C API of a model library (include/cuvil/runtime/ModelApi.h) over the
// model ABI, and the library's cuvil_parallel_for. The compiler links it
// with the model into one object whose `cuvil_model_*` symbols it renames
// after the model and whose other symbols it hides. Like the rest of the
// library's runtime it needs libc and pthreads only: no C++ runtime library,
// no exceptions, no operator new.
#include "cuvil/runtime/ModelABI.h"
#include "cuvil/runtime/ModelApi.h"

#include "DType.h"
#include "FloatEnvironment.h"
#include "Frame.h"
#include "Isa.h"
#include "ModelWeights.h"
#include "SymbolBinding.h"
#include "ThreadPool.h"

#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <pthread.h>

using namespace cuvil::runtime;

// Who runs the frame's parallel calls: the caller's pool, the instance's
// own, or (neither) the calling thread. The frame header points to it.
struct Executor {
  cuvil_pool_run run = nullptr;
  void *context = nullptr;
  ThreadPool *pool = nullptr;
};

struct cuvil_instance {
  Executor executor;
  FrameMemory memory;
  int64_t *symbols = nullptr;
  // Per input then output: the pointer cuvil_run gets, and an aligned copy
  // for a caller's buffer that is not aligned to its element (max size,
  // made on first need).
  void **io = nullptr;
  void **staging = nullptr;
  const int64_t **inputDims = nullptr; // per input, for the run

  // Every output's dims, one after another (cuvil_output_dims).
  int64_t *outputDims = nullptr;
  char error[1024] = "";
};

namespace {

constexpr uintptr_t kAlignment = 64; // of the instance's own buffers

thread_local char createError[1024];

const cuvil_model_info &model() { return cuvil_model; }

uint32_t ioCount() { return model().num_inputs + model().num_outputs; }

cuvil_status fail(cuvil_instance *instance, cuvil_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

cuvil_status fail(cuvil_instance *instance, cuvil_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(instance->error, sizeof instance->error, format, args);
  va_end(args);
  return status;
}

static_assert(sizeof(cuvil_string_element) == sizeof(cuvil_string) &&
              offsetof(cuvil_string_element, size) == offsetof(cuvil_string, size));

uint64_t elementBytes(int32_t dtype) {
  const DTypeInfo *info = findDType(dtype);
  return info ? info->size : 1;
}

// Bytes of a tensor with these dims (checked against overflow by the
// ranges the signature gives).
uint64_t byteSize(const cuvil_tensor_info &info, const int64_t *dims) {
  uint64_t bytes = elementBytes(info.dtype);
  for (int32_t d = 0; d < info.rank; ++d)
    bytes *= uint64_t(dims[d]);
  return bytes;
}

// The kernels' vector accesses take any address (unaligned loads and
// stores), so a caller's buffer is used in place when it is aligned to its
// element (numpy's 16-byte aligned arrays included); only a buffer that is
// not is copied.
bool elementAligned(const void *pointer, const cuvil_tensor_info &info) {
  return reinterpret_cast<uintptr_t>(pointer) % elementBytes(info.dtype) == 0;
}

void *stagingBuffer(cuvil_instance *instance, uint32_t slot, const cuvil_tensor_info &info) {
  if (!instance->staging[slot]) {
    uint64_t bytes = byteSize(info, info.dims);
    void *buffer = nullptr;
    if (posix_memalign(&buffer, kAlignment, bytes ? bytes : 1) == 0)
      instance->staging[slot] = buffer;
  }
  return instance->staging[slot];
}

void releaseInstance(cuvil_instance *instance) {
  if (instance->executor.pool) {
    instance->executor.pool->~ThreadPool();
    std::free(instance->executor.pool);
  }
  releaseFrame(instance->memory);
  for (uint32_t slot = 0; instance->staging && slot < ioCount(); ++slot)
    std::free(instance->staging[slot]);
  std::free(instance->staging);
  std::free(instance->io);
  std::free(instance->symbols);
  std::free(instance->outputDims);
  std::free(instance->inputDims);
  instance->~cuvil_instance();
  std::free(instance);
}

// Replaces the instance's own pool with one of `threads` participants (none
// for one).
cuvil_status startPool(cuvil_instance *instance, unsigned threads) {
  if (instance->executor.pool) {
    instance->executor.pool->~ThreadPool();
    std::free(instance->executor.pool);
    instance->executor.pool = nullptr;
  }
  if (threads <= 1)
    return CUVIL_OK;
  void *memory = nullptr;
  if (posix_memalign(&memory, alignof(ThreadPool), sizeof(ThreadPool)) != 0)
    return fail(instance, CUVIL_OUT_OF_MEMORY, "out of memory for a pool of %u threads", threads);
  auto *pool = new (memory) ThreadPool(threads);
  instance->executor.pool = pool;
  if (int error = pool->startError())
    return fail(instance, CUVIL_THREAD_ERROR, "started %u of %u threads: %s", pool->numThreads(),
                threads, std::strerror(error));
  return CUVIL_OK;
}

// The dims of input i: the caller's, or the signature's when it gives none
// (every dim fixed). Checks the fixed dims.
cuvil_status inputDims(cuvil_instance *instance, uint32_t i, const int64_t *const *given,
                       const int64_t **dims) {
  const cuvil_tensor_info &info = model().inputs[i];
  *dims = given ? given[i] : nullptr;
  bool symbolic = false;
  for (int32_t d = 0; d < info.rank; ++d)
    symbolic |= isSymbolicDim(info, d);
  if (!*dims) {
    if (symbolic)
      return fail(instance, CUVIL_INVALID_ARGUMENT,
                  "input '%s' has symbolic dims: its input_dims entry is required", info.name);
    *dims = info.dims;
    return CUVIL_OK;
  }
  for (int32_t d = 0; d < info.rank; ++d) {
    if (!isSymbolicDim(info, d) && (*dims)[d] != info.dims[d])
      return fail(instance, CUVIL_BAD_SHAPE,
                  "input '%s' dim %d is %" PRId64 ", but the model was compiled for %" PRId64,
                  info.name, d, (*dims)[d], info.dims[d]);
  }
  return CUVIL_OK;
}

// The smallest dims of every input and output, one after another: a
// symbolic input dim's symbol's min; an output's expression dim has no
// simple minimum (0). Built once per process.
pthread_once_t minDimsOnce = PTHREAD_ONCE_INIT;
int64_t *minDims = nullptr;

int32_t rankOf(uint32_t slot) {
  return slot < model().num_inputs ? model().inputs[slot].rank
                                   : model().outputs[slot - model().num_inputs].rank;
}

void buildMinDims() {
  uint64_t total = 0;
  for (uint32_t slot = 0; slot < ioCount(); ++slot)
    total += uint64_t(rankOf(slot));
  minDims = static_cast<int64_t *>(std::calloc(total + 1, sizeof(int64_t)));
  for (uint32_t slot = 0, next = 0; minDims && slot < ioCount(); ++slot) {
    const cuvil_tensor_info &info = slot < model().num_inputs
                                        ? model().inputs[slot]
                                        : model().outputs[slot - model().num_inputs];
    for (int32_t d = 0; d < info.rank; ++d, ++next) {
      int32_t s = info.dim_symbols[d];
      minDims[next] = s >= 0 ? model().symbols[s].min : s == CUVIL_DIM_CONSTANT ? info.dims[d] : 0;
    }
  }
}

cuvil_status describe(uint32_t slot, const cuvil_tensor_info &info, cuvil_tensor_desc *desc) {
  pthread_once(&minDimsOnce, buildMinDims);
  if (!minDims)
    return CUVIL_OUT_OF_MEMORY;
  uint64_t offset = 0;
  for (uint32_t s = 0; s < slot; ++s)
    offset += uint64_t(rankOf(s));
  desc->name = info.name;
  desc->element_type = info.dtype;
  desc->rank = info.rank;
  desc->min_dims = minDims + offset;
  desc->max_dims = info.dims;
  desc->dim_names = info.dim_exprs;
  return CUVIL_OK;
}

} // namespace

extern "C" {

int32_t cuvil_model_num_inputs(void) { return int32_t(model().num_inputs); }
int32_t cuvil_model_num_outputs(void) { return int32_t(model().num_outputs); }

cuvil_status cuvil_model_input(int32_t index, cuvil_tensor_desc *desc) {
  if (!desc || index < 0 || uint32_t(index) >= model().num_inputs)
    return CUVIL_INVALID_ARGUMENT;
  return describe(uint32_t(index), model().inputs[index], desc);
}

cuvil_status cuvil_model_output(int32_t index, cuvil_tensor_desc *desc) {
  if (!desc || index < 0 || uint32_t(index) >= model().num_outputs)
    return CUVIL_INVALID_ARGUMENT;
  return describe(model().num_inputs + uint32_t(index), model().outputs[index], desc);
}

const char *cuvil_model_last_error(const cuvil_instance *instance) {
  return instance ? instance->error : createError;
}

cuvil_status cuvil_model_create(cuvil_instance **result) {
  createError[0] = '\0';
  if (!result) {
    std::snprintf(createError, sizeof createError, "the instance pointer is NULL");
    return CUVIL_INVALID_ARGUMENT;
  }
  *result = nullptr;
  if (model().abi_version != CUVIL_ABI_VERSION) {
    std::snprintf(createError, sizeof createError,
                  "the model was compiled for runtime ABI version %u, this runtime is %u",
                  model().abi_version, CUVIL_ABI_VERSION);
    return CUVIL_INVALID_ARGUMENT;
  }
  if (requestedIsaCap() == kUnknownIsaCap) {
    std::snprintf(createError, sizeof createError, "CUVIL_ISA='%s' is not one of %s",
                  std::getenv("CUVIL_ISA"), isaLevelNames());
    return CUVIL_UNSUPPORTED_CPU;
  }
  if (effectiveIsaLevel() < model().min_isa_level) {
    std::snprintf(createError, sizeof createError,
                  "this model needs a CPU with %s (compiled variants: %s), but this one offers %s",
                  isaLevelName(model().min_isa_level), model().isa_variants,
                  isaLevelName(effectiveIsaLevel()));
    return CUVIL_UNSUPPORTED_CPU;
  }
  void *memory = std::calloc(1, sizeof(cuvil_instance));
  if (!memory) {
    std::snprintf(createError, sizeof createError, "out of memory");
    return CUVIL_OUT_OF_MEMORY;
  }
  auto *instance = new (memory) cuvil_instance();
  uint64_t dimsTotal = 0;
  for (uint32_t o = 0; o < model().num_outputs; ++o)
    dimsTotal += uint64_t(model().outputs[o].rank);
  instance->symbols = static_cast<int64_t *>(std::calloc(model().num_symbols + 1, 8));
  instance->io = static_cast<void **>(std::calloc(ioCount() + 1, sizeof(void *)));
  instance->staging = static_cast<void **>(std::calloc(ioCount() + 1, sizeof(void *)));
  instance->outputDims = static_cast<int64_t *>(std::calloc(dimsTotal + 1, 8));
  instance->inputDims =
      static_cast<const int64_t **>(std::calloc(model().num_inputs + 1, sizeof(int64_t *)));
  char reason[1024];
  const void *weights = modelWeights(model(), reason, sizeof reason);
  int error = instance->symbols && instance->io && instance->staging && instance->outputDims &&
                      instance->inputDims
                  ? allocateFrame(model(), &instance->executor, weights, instance->memory)
                  : ENOMEM;
  cuvil_status status = CUVIL_OK;
  if (!weights)
    status = fail(instance, CUVIL_NO_WEIGHTS, "%s", reason);
  else if (error)
    status = fail(instance, CUVIL_OUT_OF_MEMORY,
                  "cannot allocate the model's working memory (arena of %" PRIu64 " bytes): %s",
                  model().arena_bytes, std::strerror(error));
  else
    status = startPool(instance, availableCpus());
  if (status != CUVIL_OK) {
    std::snprintf(createError, sizeof createError, "%s", instance->error);
    releaseInstance(instance);
    return status;
  }
  *result = instance;
  return CUVIL_OK;
}

void cuvil_model_destroy(cuvil_instance *instance) {
  if (instance)
    releaseInstance(instance);
}

cuvil_status cuvil_model_set_threads(cuvil_instance *instance, int32_t threads) {
  if (!instance)
    return CUVIL_INVALID_ARGUMENT;
  instance->error[0] = '\0';
  if (threads < 0 || threads > 4096)
    return fail(instance, CUVIL_INVALID_ARGUMENT, "%d threads: give 0 (all CPUs) to 4096", threads);
  return startPool(instance, threads == 0 ? availableCpus() : unsigned(threads));
}

cuvil_status cuvil_model_set_pool(cuvil_instance *instance, cuvil_pool_run run, void *pool) {
  if (!instance)
    return CUVIL_INVALID_ARGUMENT;
  instance->error[0] = '\0';
  instance->executor.run = run;
  instance->executor.context = run ? pool : nullptr;
  return CUVIL_OK;
}

cuvil_status cuvil_model_run(cuvil_instance *instance, const void *const *inputs,
                             const int64_t *const *input_dims, void *const *outputs,
                             int64_t *const *output_dims) {
  if (!instance)
    return CUVIL_INVALID_ARGUMENT;
  instance->error[0] = '\0';
  const cuvil_model_info &info = model();
  if ((info.num_inputs && !inputs) || (info.num_outputs && !outputs))
    return fail(instance, CUVIL_INVALID_ARGUMENT, "the %s array is NULL",
                info.num_inputs && !inputs ? "inputs" : "outputs");
  // The dims and data of every input, checked, then the symbols they give.
  const int64_t **dimsOf = instance->inputDims;
  for (uint32_t i = 0; i < info.num_inputs; ++i) {
    if (cuvil_status status = inputDims(instance, i, input_dims, &dimsOf[i]))
      return status;
    if (!inputs[i] && byteSize(info.inputs[i], dimsOf[i]) != 0)
      return fail(instance, CUVIL_INVALID_ARGUMENT, "input '%s' is NULL", info.inputs[i].name);
  }
  for (uint32_t o = 0; o < info.num_outputs; ++o)
    if (!outputs[o])
      return fail(instance, CUVIL_INVALID_ARGUMENT, "output '%s' is NULL", info.outputs[o].name);
  if (!bindInputSymbols(info, dimsOf, inputs, instance->symbols, instance->error,
                        sizeof instance->error))
    return CUVIL_BAD_SHAPE;
  for (uint32_t i = 0; i < info.num_inputs; ++i) {
    void *data = const_cast<void *>(inputs[i]);
    if (!elementAligned(data, info.inputs[i])) {
      void *copy = stagingBuffer(instance, i, info.inputs[i]);
      if (!copy)
        return fail(instance, CUVIL_OUT_OF_MEMORY, "out of memory for an aligned copy of '%s'",
                    info.inputs[i].name);
      std::memcpy(copy, data, byteSize(info.inputs[i], dimsOf[i]));
      data = copy;
    }
    instance->io[i] = data;
  }
  for (uint32_t o = 0; o < info.num_outputs; ++o) {
    uint32_t slot = info.num_inputs + o;
    instance->io[slot] = outputs[o];
    if (!elementAligned(outputs[o], info.outputs[o]) &&
        !(instance->io[slot] = stagingBuffer(instance, slot, info.outputs[o])))
      return fail(instance, CUVIL_OUT_OF_MEMORY, "out of memory for an aligned copy of '%s'",
                  info.outputs[o].name);
  }

  // Kernels run with subnormals flushed, as in infer.bin; the caller's
  // setting comes back afterwards.
  uint64_t control = floatControl();
  flushSubnormalsToZero();
  int64_t value = 0;
  prepareRun(instance->memory);
  int32_t code = cuvil_run(instance->memory.frame, instance->io, instance->io + info.num_inputs,
                           instance->symbols, &value);
  setFloatControl(control);
  if (code != 0) {
    const char *message = code > 0 && uint32_t(code) <= info.num_errors
                              ? info.errors[code - 1]
                              : "the model's run failed with an unknown status";
    const char *hole = std::strstr(message, "{}");
    if (hole)
      return fail(instance, CUVIL_BAD_DATA, "%.*s%" PRId64 "%s", int(hole - message), message,
                  value, hole + 2);
    return fail(instance, CUVIL_BAD_DATA, "%s", message);
  }

  info.output_dims(instance->symbols, instance->outputDims);
  const int64_t *dims = instance->outputDims;
  for (uint32_t o = 0; o < info.num_outputs; dims += info.outputs[o].rank, ++o) {
    uint32_t slot = info.num_inputs + o;
    if (instance->io[slot] != outputs[o])
      std::memcpy(outputs[o], instance->io[slot], byteSize(info.outputs[o], dims));
    if (output_dims && output_dims[o])
      std::memcpy(output_dims[o], dims, sizeof(int64_t) * size_t(info.outputs[o].rank));
  }
  return CUVIL_OK;
}

void cuvil_parallel_for(cuvil_task_fn task, void *frame, int64_t numTasks, int64_t workNs,
                        int64_t /*call: for infer.bin's profiler*/) {
  const auto *executor =
      static_cast<const Executor *>(static_cast<cuvil_frame_header *>(frame)->runtime);
  if (executor->run) {
    if (numTasks > 0)
      executor->run(executor->context, task, frame, numTasks, workNs);
    return;
  }
  if (executor->pool)
    executor->pool->parallelFor(task, frame, numTasks, workNs);
  else if (numTasks > 0)
    task(frame, 0, numTasks);
}

} // extern "C"
