#ifndef CUVIL_RUNTIME_THREADPOOL_H
#define CUVIL_RUNTIME_THREADPOOL_H

#include "cuvil/runtime/ModelABI.h"

#include <atomic>
#include <cstdint>
#include <pthread.h>

namespace cuvil::runtime {

/// A persistent pool behind cuvil_parallel_for: one per model instance (the
/// frame's runtime field names it). A compiled model calls it once per
/// parallel operator, so dispatch and completion are built for latency: the
/// caller publishes a task by bumping a generation counter that idle workers
/// spin on, and waits for them on a countdown. Both sides spin for a short
/// while before blocking on a futex, so back-to-back calls cost a
/// microsecond or less while an idle process sleeps.
///
/// It needs nothing but libc and pthreads (no C++ runtime library, no
/// exceptions), so that the model libraries it is linked into depend on
/// nothing else. parallelFor must not be called concurrently from several
/// threads (runs in one frame do not overlap).
class ThreadPool {
public:
  /// numThreads participants in total: the calling thread plus numThreads - 1
  /// workers, started now. When a worker cannot start, the pool keeps the
  /// ones that did and startError() says why.
  explicit ThreadPool(unsigned numThreads);
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;
  ~ThreadPool();

  unsigned numThreads() const { return numThreads_; }
  /// 0, or the error number of the worker that could not start.
  int startError() const { return startError_; }

  /// Participant t of T runs task(frame, t*n/T, (t+1)*n/T) when that range is
  /// not empty; the caller is participant 0. Returns once every range has
  /// run. A call whose estimated time on one thread (workNs; negative: not
  /// known) would save less by splitting than a split costs runs on the
  /// caller alone. Returns the number of threads that ran chunks of it.
  unsigned parallelFor(cuvil_task_fn task, void *frame, int64_t numTasks, int64_t workNs = -1);

  /// What one split costs the caller: publishing a call and waiting for every
  /// worker to report (cache-line round trips between cores), measured when
  /// the pool starts.
  int64_t splitCostNs() const { return splitCostNs_; }

private:
  struct Worker {
    ThreadPool *pool;
    unsigned index;
    pthread_t thread;
  };
  static void *workerMain(void *worker);
  void workerLoop(unsigned index);
  void runChunk(unsigned index);
  void split(cuvil_task_fn task, void *frame, int64_t numTasks);
  int64_t measureSplitCost();

  unsigned numThreads_;
  int startError_ = 0;
  int64_t splitCostNs_ = 0;
  // More threads than CPUs: waiting threads yield rather than pause.
  const bool oversubscribed_;
  Worker *workers_ = nullptr; // numThreads_ - 1 of them

  // Written by the caller per dispatch and read by every worker right after it
  // sees a new generation, so it shares the generation's cache line.
  struct alignas(64) {
    std::atomic<uint32_t> generation{0};
    std::atomic<uint32_t> sleepingWorkers{0};
    std::atomic<bool> stop{false};
    cuvil_task_fn task = nullptr;
    void *frame = nullptr;
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

/// cuvil_parallel_for's work: the pool the frame names runs the call, or the
/// caller alone when the frame names none. Returns the threads that ran it.
unsigned parallelForFrame(cuvil_task_fn task, void *frame, int64_t numTasks, int64_t workNs);

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_THREADPOOL_H
