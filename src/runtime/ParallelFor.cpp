// infer.bin's cuvil_parallel_for: the frame's pool runs the call, timed per
// call under --profile. (A model library's has no profiler: EmbedApi.cpp.)
#include "Clock.h"
#include "Profiler.h"
#include "ThreadPool.h"

extern "C" void cuvil_parallel_for(cuvil_task_fn task, void *frame, int64_t numTasks,
                                   int64_t workNs, int64_t call) {
  using namespace cuvil::runtime;
  if (!Profiler::enabled()) {
    parallelForFrame(task, frame, numTasks, workNs);
    return;
  }
  int64_t start = monotonicNs();
  unsigned threads = parallelForFrame(task, frame, numTasks, workNs);
  Profiler::record(call, monotonicNs() - start, workNs < 0 ? -1 : workNs / threads);
}
