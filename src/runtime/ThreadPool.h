#ifndef CUVIL_RUNTIME_THREADPOOL_H
#define CUVIL_RUNTIME_THREADPOOL_H

#include "cuvil/runtime/ModelABI.h"

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace cuvil::runtime {

/// A persistent pool behind cuvil_parallel_for. A compiled model calls it once
/// per parallel operator, so dispatch and completion are built for latency:
/// the caller publishes a task by bumping a generation counter that idle
/// workers spin on, and waits for them on a countdown. Both sides spin for a
/// short while before blocking on a futex, so back-to-back calls cost a
/// microsecond or less while an idle process sleeps.
///
/// parallelFor must not be called concurrently from several threads (the
/// model ABI forbids overlapping inferences).
class ThreadPool {
public:
  /// numThreads participants in total: the calling thread plus numThreads - 1 workers.
  explicit ThreadPool(unsigned numThreads);
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;
  ~ThreadPool();

  unsigned numThreads() const { return numThreads_; }

  /// Participant t of T runs task(t*n/T, (t+1)*n/T) when that range is not
  /// empty; the caller is participant 0. Returns once every range has run.
  /// A call whose estimated time on one thread (workNs; negative: not known)
  /// would save less by splitting than a split costs runs on the caller alone.
  /// Returns the number of threads that ran chunks of it.
  unsigned parallelFor(cuvil_task_fn task, int64_t numTasks, int64_t workNs = -1);

  /// What one split costs the caller: publishing a call and waiting for every
  /// worker to report (cache-line round trips between cores), measured when
  /// the pool starts.
  int64_t splitCostNs() const { return splitCostNs_; }

private:
  void workerLoop(unsigned index);
  void runChunk(unsigned index);
  void split(cuvil_task_fn task, int64_t numTasks);
  int64_t measureSplitCost();
  void shutdown();

  const unsigned numThreads_;
  int64_t splitCostNs_ = 0;
  // More threads than CPUs: waiting threads yield rather than pause.
  const bool oversubscribed_;
  std::vector<std::thread> workers_;

  // Written by the caller per dispatch and read by every worker right after it
  // sees a new generation, so it shares the generation's cache line.
  struct alignas(64) {
    std::atomic<uint32_t> generation{0};
    std::atomic<uint32_t> sleepingWorkers{0};
    std::atomic<bool> stop{false};
    cuvil_task_fn task = nullptr;
    int64_t numTasks = 0;
  } dispatch_;

  // Written by every worker as it finishes; kept off the dispatch line.
  struct alignas(64) {
    std::atomic<uint32_t> pendingWorkers{0};
    std::atomic<uint32_t> callerSleeping{0};
  } completion_;
};

/// The number of CPUs this process may run on (sched_getaffinity), at least 1.
unsigned availableCpus();

/// Replaces the pool behind cuvil_parallel_for with one of numThreads >= 1
/// participants, starting its workers now so that the first inference does not
/// pay for it. Must not run concurrently with an inference. Without a call,
/// the first cuvil_parallel_for creates a pool of availableCpus() threads.
void setNumThreads(unsigned numThreads);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_THREADPOOL_H
