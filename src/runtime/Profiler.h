#ifndef CUVIL_RUNTIME_PROFILER_H
#define CUVIL_RUNTIME_PROFILER_H

#include "cuvil/runtime/ModelABI.h"

#include <cstdio>

namespace cuvil::runtime {

/// Per-kernel-call timing for infer.bin --profile. cuvil_parallel_for calls
/// record() with the duration of each call and its bound, the compiler's
/// estimate of its time (work_ns) over the threads that ran it, by the
/// call's index in the path's kernel_call_names (a loop body's calls add up
/// over its iterations).
class Profiler {
public:
  /// Starts collecting for a model with `calls` kernel calls per run.
  static void enable(uint32_t calls);
  static bool enabled();
  /// Counts timed runs (warm-up runs are reset away).
  static void reset();
  /// boundNs < 0: the call has no estimate.
  static void record(int64_t call, int64_t nanoseconds, int64_t boundNs);
  /// The calls sorted by time, with the names of the path's calls, their
  /// bounds and the share of its bound each reached.
  static void print(FILE *out, const cuvil_path_info &path, uint64_t runs);
};

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_PROFILER_H
