#include "BenchStats.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>

using namespace cuvil::runtime;

namespace {

TEST(BenchStats, NearestRankOnHundredSamples) {
  std::vector<double> samples;
  for (int i = 1; i <= 100; ++i)
    samples.push_back(i);
  std::shuffle(samples.begin(), samples.end(), std::mt19937(42));
  BenchStats stats = computeBenchStats(samples);
  EXPECT_EQ(stats.runs, 100u);
  EXPECT_EQ(stats.medianMs, 50);
  EXPECT_EQ(stats.p90Ms, 90);
  EXPECT_EQ(stats.p99Ms, 99);
  EXPECT_EQ(stats.minMs, 1);
  EXPECT_EQ(stats.maxMs, 100);
  EXPECT_DOUBLE_EQ(stats.meanMs, 50.5);
  EXPECT_DOUBLE_EQ(stats.throughputPerSecond(), 20);
}

TEST(BenchStats, NearestRankRoundsUp) {
  std::vector<double> sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(nearestRankPercentile(sorted, 0), 1);
  EXPECT_EQ(nearestRankPercentile(sorted, 50), 5);
  EXPECT_EQ(nearestRankPercentile(sorted, 51), 6);
  EXPECT_EQ(nearestRankPercentile(sorted, 90), 9);
  EXPECT_EQ(nearestRankPercentile(sorted, 91), 10);
  EXPECT_EQ(nearestRankPercentile(sorted, 99), 10);
  EXPECT_EQ(nearestRankPercentile(sorted, 100), 10);
}

TEST(BenchStats, SingleSample) {
  BenchStats stats = computeBenchStats({0.25});
  EXPECT_EQ(stats.medianMs, 0.25);
  EXPECT_EQ(stats.p99Ms, 0.25);
  EXPECT_EQ(stats.minMs, 0.25);
  EXPECT_EQ(stats.meanMs, 0.25);
  EXPECT_DOUBLE_EQ(stats.throughputPerSecond(), 4000);
}

TEST(BenchStats, EvenCountMedianIsLowerMiddle) {
  EXPECT_EQ(computeBenchStats({4, 1, 3, 2}).medianMs, 2);
}

} // namespace
