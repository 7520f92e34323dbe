#include "ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <mutex>
#include <set>
#include <thread>

using namespace cuvil::runtime;

namespace {

// The tasks below report through globals; the frame is for the model's operands.
std::vector<std::atomic<int>> *gHits;
std::mutex gMutex;
std::vector<std::pair<int64_t, int64_t>> gChunks;
std::set<std::thread::id> gThreadIds;

void countHits(void *, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    (*gHits)[size_t(i)].fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(gMutex);
  gChunks.emplace_back(begin, end);
  gThreadIds.insert(std::this_thread::get_id());
}

void resetRecords() {
  gChunks.clear();
  gThreadIds.clear();
}

/// The chunks the static contiguous split promises.
std::vector<std::pair<int64_t, int64_t>> expectedChunks(int64_t n, unsigned threads) {
  std::vector<std::pair<int64_t, int64_t>> chunks;
  for (unsigned t = 0; t < threads; ++t) {
    int64_t begin = int64_t(__int128(t) * n / threads);
    int64_t end = int64_t(__int128(t + 1) * n / threads);
    if (begin < end)
      chunks.emplace_back(begin, end);
  }
  return chunks;
}

TEST(ThreadPool, CoversEveryIndexOnceWithTheStaticSplit) {
  for (unsigned threads : {1u, 2u, 3u, 4u, 7u, 8u}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.numThreads(), threads);
    for (int64_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 100, 1001, 65537}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      gHits = &hits;
      resetRecords();
      pool.parallelFor(countHits, nullptr, n);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(hits[size_t(i)].load(), 1) << "index " << i << " of " << n << ", " << threads;
      std::sort(gChunks.begin(), gChunks.end());
      EXPECT_EQ(gChunks, expectedChunks(n, threads)) << n << " tasks, " << threads << " threads";
      // Every non-empty chunk runs on its own participant.
      EXPECT_EQ(gThreadIds.size(), gChunks.size());
    }
  }
}

TEST(ThreadPool, CallerTakesPartAndChunksRunConcurrently) {
  constexpr unsigned kThreads = 4;
  ThreadPool pool(kThreads);
  static std::atomic<unsigned> arrived;
  static std::atomic<bool> allMet;
  arrived = 0;
  allMet = true;
  resetRecords();
  // Each chunk waits until all have started: this only finishes if they run
  // at the same time, on kThreads different threads.
  pool.parallelFor(
      [](void *, int64_t begin, int64_t end) {
        arrived.fetch_add(1);
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (arrived.load() < kThreads) {
          if (std::chrono::steady_clock::now() > deadline) {
            allMet = false;
            break;
          }
          std::this_thread::yield();
        }
        std::lock_guard lock(gMutex);
        gThreadIds.insert(std::this_thread::get_id());
      },
      nullptr, kThreads);
  EXPECT_TRUE(allMet.load());
  EXPECT_EQ(gThreadIds.size(), kThreads);
  EXPECT_TRUE(gThreadIds.count(std::this_thread::get_id()));
}

std::atomic<int64_t> gSum;

void addIndices(void *, int64_t begin, int64_t end) {
  int64_t sum = 0;
  for (int64_t i = begin; i < end; ++i)
    sum += i;
  gSum.fetch_add(sum, std::memory_order_relaxed);
}

TEST(ThreadPool, ManyBackToBackCalls) {
  for (unsigned threads : {2u, 3u, 5u}) {
    ThreadPool pool(threads);
    int64_t expected = 0;
    gSum = 0;
    for (int call = 0; call < 20000; ++call) {
      int64_t n = call % 37;
      pool.parallelFor(addIndices, nullptr, n);
      expected += n * (n - 1) / 2;
      ASSERT_EQ(gSum.load(), expected) << "call " << call << ", " << threads << " threads";
    }
  }
}

TEST(ThreadPool, WakesWorkersThatFellAsleep) {
  ThreadPool pool(3);
  for (int round = 0; round < 5; ++round) {
    // Longer than the spin budget, so the workers block on the futex.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::vector<std::atomic<int>> hits(30);
    gHits = &hits;
    resetRecords();
    pool.parallelFor(countHits, nullptr, 30);
    for (auto &hit : hits)
      ASSERT_EQ(hit.load(), 1);
    EXPECT_EQ(gThreadIds.size(), 3u);
  }
}

TEST(ThreadPool, SplitsHugeRangesWithoutOverflow) {
  ThreadPool pool(3);
  resetRecords();
  pool.parallelFor(
      [](void *, int64_t begin, int64_t end) {
        std::lock_guard lock(gMutex);
        gChunks.emplace_back(begin, end);
      },
      nullptr, INT64_MAX);
  std::sort(gChunks.begin(), gChunks.end());
  ASSERT_EQ(gChunks.size(), 3u);
  EXPECT_EQ(gChunks.front().first, 0);
  EXPECT_EQ(gChunks[0].second, gChunks[1].first);
  EXPECT_EQ(gChunks[1].second, gChunks[2].first);
  EXPECT_EQ(gChunks.back().second, INT64_MAX);
}

// A call whose estimated time is below what splitting saves runs whole on
// the caller; a long one (or one of unknown length) is split.
TEST(ThreadPool, CallsTooShortToRepayASplitRunOnTheCaller) {
  ThreadPool pool(2);
  EXPECT_GT(pool.splitCostNs(), 0);
  for (int64_t workNs :
       {int64_t(0), pool.splitCostNs(), 2 * pool.splitCostNs(), int64_t(1) << 40, int64_t(-1)}) {
    std::vector<std::atomic<int>> hits(50);
    gHits = &hits;
    resetRecords();
    pool.parallelFor(countHits, nullptr, 50, workNs);
    for (auto &hit : hits)
      ASSERT_EQ(hit.load(), 1);
    bool split = workNs < 0 || workNs > 2 * pool.splitCostNs();
    EXPECT_EQ(gChunks.size(), split ? 2u : 1u) << workNs << " ns";
    if (!split) {
      EXPECT_EQ(*gThreadIds.begin(), std::this_thread::get_id());
    }
  }
}

TEST(ThreadPool, NegativeCountRunsNothing) {
  ThreadPool pool(2);
  gSum = 0;
  pool.parallelFor([](void *, int64_t, int64_t) { gSum = 1; }, nullptr, -5);
  EXPECT_EQ(gSum.load(), 0);
}

std::atomic<int> gInnerTasks;

void innerTask(void *, int64_t begin, int64_t end) { gInnerTasks.fetch_add(int(end - begin)); }

void outerTask(void *frame, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    cuvil_parallel_for(innerTask, frame, 10, -1, 0);
}

TEST(ThreadPool, FramesPoolRunsTheirCallsAndNestedCallsInline) {
  for (unsigned threads : {1u, 2u, 4u}) {
    ThreadPool pool(threads);
    cuvil_frame_header frame = {&pool, nullptr, nullptr, 0, 0, nullptr};
    std::vector<std::atomic<int>> hits(50);
    gHits = &hits;
    resetRecords();
    cuvil_parallel_for(countHits, &frame, 50, -1, 0);
    for (auto &hit : hits)
      ASSERT_EQ(hit.load(), 1);
    EXPECT_EQ(gThreadIds.size(), threads);

    gInnerTasks = 0;
    cuvil_parallel_for(outerTask, &frame, 8, -1, 0);
    EXPECT_EQ(gInnerTasks.load(), 80);
  }
}

TEST(ThreadPool, FrameWithoutAPoolRunsOnTheCaller) {
  cuvil_frame_header frame = {nullptr, nullptr, nullptr, 0, 0, nullptr};
  std::vector<std::atomic<int>> hits(20);
  gHits = &hits;
  resetRecords();
  cuvil_parallel_for(countHits, &frame, 20, -1, 0);
  for (auto &hit : hits)
    ASSERT_EQ(hit.load(), 1);
  ASSERT_EQ(gThreadIds.size(), 1u);
  EXPECT_EQ(*gThreadIds.begin(), std::this_thread::get_id());
}

// Two instances of a model run at once, each on its own pool: every call
// of each covers its own range exactly once.
struct Instance {
  cuvil_frame_header header;
  std::atomic<int64_t> sum{0};
};

void sumIndices(void *frame, int64_t begin, int64_t end) {
  int64_t sum = 0;
  for (int64_t i = begin; i < end; ++i)
    sum += i;
  static_cast<Instance *>(frame)->sum.fetch_add(sum, std::memory_order_relaxed);
}

TEST(ThreadPool, PoolsOfTwoInstancesRunConcurrently) {
  ThreadPool poolA(2), poolB(2);
  Instance a, b;
  a.header = {&poolA, nullptr, nullptr, 0, 0, nullptr};
  b.header = {&poolB, nullptr, nullptr, 0, 0, nullptr};
  auto drive = [](Instance *instance, int64_t n) {
    for (int call = 0; call < 5000; ++call)
      cuvil_parallel_for(sumIndices, instance, n, -1, 0);
  };
  std::thread first(drive, &a, 100), second(drive, &b, 37);
  first.join();
  second.join();
  EXPECT_EQ(a.sum.load(), 5000 * (100 * 99 / 2));
  EXPECT_EQ(b.sum.load(), 5000 * (37 * 36 / 2));
}

TEST(ThreadPool, AvailableCpusIsPositive) { EXPECT_GE(availableCpus(), 1u); }

} // namespace
