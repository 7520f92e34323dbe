#include "ThreadPool.h"

#include "FloatEnvironment.h"
#include "Profiler.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <linux/futex.h>
#include <memory>
#include <sched.h>
#include <stdexcept>
#include <string>
#include <sys/syscall.h>
#include <system_error>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace cuvil::runtime {
namespace {

// How long a waiting thread spins before blocking on the futex. Gaps between
// the parallel operators of one inference, and between benchmark runs, are
// far shorter, while a process that stops calling sleeps after a millisecond.
constexpr auto kSpinBudget = std::chrono::microseconds(1000);
// Spin iterations between clock reads and yields: about a microsecond of pauses.
constexpr unsigned kSpinInterval = 64;

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "futex words must be plain 32-bit integers");

// Raw futex rather than std::atomic::wait: it works the same under static
// glibc and leaves all spinning policy to this file.
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
  std::this_thread::yield();
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
  std::chrono::steady_clock::time_point start;
  for (unsigned i = 1;; ++i) {
    if (done())
      return true;
    if (oversubscribed && i > kSpinInterval)
      std::this_thread::yield();
    else
      cpuRelax();
    // Waits that end within the first interval, the common case, make no
    // system call and read no clock.
    if (i % kSpinInterval == 0) {
      auto now = std::chrono::steady_clock::now();
      if (i == kSpinInterval)
        start = now;
      else if (now - start > kSpinBudget)
        return done();
      std::this_thread::yield();
    }
  }
}

/// Set on pool workers, and on the caller while it runs its own chunk, so that
/// a task that itself calls cuvil_parallel_for runs inline instead of
/// deadlocking on a pool that is busy running it.
thread_local bool insideParallelFor = false;

std::unique_ptr<ThreadPool> globalPool;

} // namespace

ThreadPool::ThreadPool(unsigned numThreads)
    : numThreads_(numThreads ? numThreads : 1), oversubscribed_(numThreads_ > availableCpus()) {
  // Reserved first so that only thread creation itself can fail below.
  workers_.reserve(numThreads_ - 1);
  try {
    for (unsigned index = 1; index < numThreads_; ++index)
      workers_.emplace_back([this, index] { workerLoop(index); });
  } catch (const std::system_error &error) {
    shutdown(); // join the workers that did start before reporting the failure
    throw std::runtime_error("cannot start " + std::to_string(numThreads_ - 1) +
                             " worker threads: " + error.what());
  }
  if (numThreads_ > 1)
    splitCostNs_ = measureSplitCost();
}

// The median of a few splits of an empty task, after two that let the
// workers start spinning. Tens of microseconds, once per pool.
int64_t ThreadPool::measureSplitCost() {
  constexpr int kWarmUp = 2, kSamples = 9;
  int64_t samples[kSamples];
  for (int i = 0; i < kWarmUp + kSamples; ++i) {
    auto start = std::chrono::steady_clock::now();
    split([](int64_t, int64_t) {}, numThreads_);
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (i >= kWarmUp)
      samples[i - kWarmUp] = std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count();
  }
  std::nth_element(samples, samples + kSamples / 2, samples + kSamples);
  return samples[kSamples / 2];
}

ThreadPool::~ThreadPool() { shutdown(); }

void ThreadPool::shutdown() {
  dispatch_.stop.store(true, std::memory_order_relaxed);
  dispatch_.generation.fetch_add(1, std::memory_order_seq_cst);
  futexWakeAll(dispatch_.generation);
  for (std::thread &worker : workers_)
    worker.join();
  workers_.clear();
}

void ThreadPool::runChunk(unsigned index) {
  // 128-bit products so that index * numTasks cannot overflow.
  int64_t n = dispatch_.numTasks;
  int64_t begin = int64_t(__int128(index) * n / numThreads_);
  int64_t end = int64_t(__int128(index + 1) * n / numThreads_);
  if (begin < end)
    dispatch_.task(begin, end);
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

unsigned ThreadPool::parallelFor(cuvil_task_fn task, int64_t numTasks, int64_t workNs) {
  // Splitting saves (T - 1) / T of the work and costs splitCostNs_.
  bool tooShort =
      workNs >= 0 && __int128(workNs) * (numThreads_ - 1) <= __int128(splitCostNs_) * numThreads_;
  if (numThreads_ == 1 || numTasks <= 1 || insideParallelFor || tooShort) {
    if (numTasks > 0)
      task(0, numTasks);
    return 1;
  }
  split(task, numTasks);
  return unsigned(std::min<int64_t>(numTasks, numThreads_));
}

void ThreadPool::split(cuvil_task_fn task, int64_t numTasks) {
  dispatch_.task = task;
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
  unsigned hardware = std::thread::hardware_concurrency();
  return hardware ? hardware : 1;
}

void setNumThreads(unsigned numThreads) {
  globalPool.reset(); // join the old workers before starting new ones
  globalPool = std::make_unique<ThreadPool>(numThreads);
}

} // namespace cuvil::runtime

extern "C" void cuvil_parallel_for(cuvil_task_fn task, int64_t numTasks, int64_t workNs) {
  using namespace cuvil::runtime;
  if (!globalPool)
    globalPool = std::make_unique<ThreadPool>(availableCpus());
  if (!Profiler::enabled()) {
    globalPool->parallelFor(task, numTasks, workNs);
    return;
  }
  auto start = std::chrono::steady_clock::now();
  unsigned threads = globalPool->parallelFor(task, numTasks, workNs);
  Profiler::record(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count(),
      workNs < 0 ? -1 : workNs / threads);
}
