#include "ThreadPool.h"

#include "Clock.h"
#include "FloatEnvironment.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace cuvil::runtime {
namespace {

// How long a waiting thread spins before blocking on the futex. Gaps between
// the parallel operators of one inference, and between benchmark runs, are
// far shorter, while a process that stops calling sleeps after a millisecond.
constexpr int64_t kSpinBudgetNs = 1'000'000;
// Spin iterations between clock reads and yields: about a microsecond of pauses.
constexpr unsigned kSpinInterval = 64;

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "futex words must be plain 32-bit integers");

// Raw futex rather than std::atomic::wait: it works the same under static
// glibc, needs no C++ runtime library and leaves all spinning policy to this
// file.
void futexWait(std::atomic<uint32_t> &word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAIT_PRIVATE, expected, nullptr,
          nullptr, 0);
}

void futexWakeAll(std::atomic<uint32_t> &word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr,
          nullptr, 0);
}

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#else
  sched_yield();
#endif
}

/// Spins until done() holds or the spin budget is spent; returns done().
///
/// It mostly pauses, which reacts fastest, but yields once per interval: when
/// other processes take CPUs, the participant everyone waits for may be queued
/// behind a spinner on the same core, and a yield lets it run within
/// microseconds rather than at the end of a time slice. When nothing else is
/// runnable the yield returns at once. An oversubscribed pool (more threads
/// than CPUs) always has that problem, so it yields on every iteration
/// (libgomp throttles its spinning likewise).
template <typename Predicate> bool spinUntil(Predicate done, bool oversubscribed) {
  int64_t start = 0;
  for (unsigned i = 1;; ++i) {
    if (done())
      return true;
    if (oversubscribed && i > kSpinInterval)
      sched_yield();
    else
      cpuRelax();
    // Waits that end within the first interval, the common case, make no
    // system call and read no clock.
    if (i % kSpinInterval == 0) {
      int64_t now = monotonicNs();
      if (i == kSpinInterval)
        start = now;
      else if (now - start > kSpinBudgetNs)
        return done();
      sched_yield();
    }
  }
}

/// Set on pool workers, and on the caller while it runs its own chunk, so that
/// a task that itself calls cuvil_parallel_for runs inline instead of
/// deadlocking on a pool that is busy running it.
thread_local bool insideParallelFor = false;

} // namespace

ThreadPool::ThreadPool(unsigned numThreads)
    : numThreads_(numThreads ? numThreads : 1), oversubscribed_(numThreads_ > availableCpus()) {
  if (numThreads_ > 1)
    workers_ = static_cast<Worker *>(std::calloc(numThreads_ - 1, sizeof(Worker)));
  unsigned started = 0;
  if (numThreads_ > 1 && !workers_)
    startError_ = ENOMEM;
  for (unsigned index = 1; !startError_ && index < numThreads_; ++index) {
    Worker &worker = workers_[index - 1];
    worker.pool = this;
    worker.index = index;
    startError_ = pthread_create(&worker.thread, nullptr, workerMain, &worker);
    started += startError_ == 0;
  }
  // Workers are numbered 1..started; a pool that could not start them all
  // runs with those that did.
  numThreads_ = started + 1;
  if (numThreads_ > 1)
    splitCostNs_ = measureSplitCost();
}

void *ThreadPool::workerMain(void *worker) {
  auto *self = static_cast<Worker *>(worker);
  self->pool->workerLoop(self->index);
  return nullptr;
}

// The median of a few splits of an empty task, after two that let the
// workers start spinning. Tens of microseconds, once per pool.
int64_t ThreadPool::measureSplitCost() {
  constexpr int kWarmUp = 2, kSamples = 9;
  int64_t samples[kSamples];
  for (int i = 0; i < kWarmUp + kSamples; ++i) {
    int64_t start = monotonicNs();
    split([](void *, int64_t, int64_t) {}, nullptr, numThreads_);
    if (i >= kWarmUp)
      samples[i - kWarmUp] = monotonicNs() - start;
  }
  std::nth_element(samples, samples + kSamples / 2, samples + kSamples);
  return samples[kSamples / 2];
}

ThreadPool::~ThreadPool() {
  dispatch_.stop.store(true, std::memory_order_relaxed);
  dispatch_.generation.fetch_add(1, std::memory_order_seq_cst);
  futexWakeAll(dispatch_.generation);
  for (unsigned index = 1; index < numThreads_; ++index)
    pthread_join(workers_[index - 1].thread, nullptr);
  std::free(workers_);
}

void ThreadPool::runChunk(unsigned index) {
  // 128-bit products so that index * numTasks cannot overflow.
  int64_t n = dispatch_.numTasks;
  int64_t begin = int64_t(__int128(index) * n / numThreads_);
  int64_t end = int64_t(__int128(index + 1) * n / numThreads_);
  if (begin < end)
    dispatch_.task(dispatch_.frame, begin, end);
}

void ThreadPool::workerLoop(unsigned index) {
  insideParallelFor = true;
  flushSubnormalsToZero();
  uint32_t seen = 0;
  for (;;) {
    auto published = [&] { return dispatch_.generation.load(std::memory_order_acquire) != seen; };
    if (!spinUntil(published, oversubscribed_)) {
      // Announce the sleep before re-checking the generation; the caller bumps
      // the generation before checking for sleepers, so one of the two sees
      // the other (both sides are seq_cst).
      dispatch_.sleepingWorkers.fetch_add(1, std::memory_order_seq_cst);
      uint32_t current;
      while ((current = dispatch_.generation.load(std::memory_order_seq_cst)) == seen)
        futexWait(dispatch_.generation, current);
      dispatch_.sleepingWorkers.fetch_sub(1, std::memory_order_relaxed);
    }
    seen = dispatch_.generation.load(std::memory_order_acquire);
    if (dispatch_.stop.load(std::memory_order_relaxed))
      return;
    runChunk(index);
    // Every worker reports every generation, even with an empty chunk, so the
    // caller cannot publish the next task while anyone may still read this one.
    if (completion_.pendingWorkers.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        completion_.callerSleeping.load(std::memory_order_seq_cst))
      futexWakeAll(completion_.pendingWorkers);
  }
}

unsigned ThreadPool::parallelFor(cuvil_task_fn task, void *frame, int64_t numTasks,
                                 int64_t workNs) {
  // Splitting saves (T - 1) / T of the work and costs splitCostNs_.
  bool tooShort =
      workNs >= 0 && __int128(workNs) * (numThreads_ - 1) <= __int128(splitCostNs_) * numThreads_;
  if (numThreads_ == 1 || numTasks <= 1 || insideParallelFor || tooShort) {
    if (numTasks > 0)
      task(frame, 0, numTasks);
    return 1;
  }
  split(task, frame, numTasks);
  return unsigned(std::min<int64_t>(numTasks, numThreads_));
}

void ThreadPool::split(cuvil_task_fn task, void *frame, int64_t numTasks) {
  dispatch_.task = task;
  dispatch_.frame = frame;
  dispatch_.numTasks = numTasks;
  completion_.pendingWorkers.store(numThreads_ - 1, std::memory_order_relaxed);
  dispatch_.generation.fetch_add(1, std::memory_order_seq_cst);
  if (dispatch_.sleepingWorkers.load(std::memory_order_seq_cst) != 0)
    futexWakeAll(dispatch_.generation);

  insideParallelFor = true;
  runChunk(0);
  insideParallelFor = false;

  auto finished = [&] { return completion_.pendingWorkers.load(std::memory_order_acquire) == 0; };
  if (spinUntil(finished, oversubscribed_))
    return;
  completion_.callerSleeping.store(1, std::memory_order_seq_cst);
  uint32_t pending;
  while ((pending = completion_.pendingWorkers.load(std::memory_order_seq_cst)) != 0)
    futexWait(completion_.pendingWorkers, pending);
  completion_.callerSleeping.store(0, std::memory_order_relaxed);
}

unsigned availableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return unsigned(CPU_COUNT(&set));
  // More CPUs than a cpu_set_t holds, or no affinity support.
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? unsigned(online) : 1;
}

unsigned parallelForFrame(cuvil_task_fn task, void *frame, int64_t numTasks, int64_t workNs) {
  auto *pool = static_cast<ThreadPool *>(static_cast<cuvil_frame_header *>(frame)->runtime);
  if (pool)
    return pool->parallelFor(task, frame, numTasks, workNs);
  if (numTasks > 0)
    task(frame, 0, numTasks);
  return 1;
}

} // namespace cuvil::runtime
