// The ranges the percentile and entropy calibration methods choose from a
// histogram, checked against what quantizing the histogrammed samples into
// 256 u8 steps over each range costs.
#include "cuvil/passes/CalibrationHistogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace cuvil {
namespace {

CalibrationHistogram histogramOf(const std::vector<float> &samples, double low, double high,
                                 size_t bins = 2048) {
  CalibrationHistogram histogram{low, high, std::vector<uint64_t>(bins, 0)};
  for (float x : samples) {
    auto bin = int64_t((x - low) / (high - low) * double(bins));
    ++histogram.counts[size_t(std::clamp<int64_t>(bin, 0, int64_t(bins) - 1))];
  }
  return histogram;
}

// The mean squared error of u8 quantization over `range` (as assign-
// precision's activationQuant: zero exact, values outside clipped).
double quantizationError(const std::vector<float> &samples, CalibratedRange range) {
  const double low = std::min<double>(range.min, 0), high = std::max<double>(range.max, 0);
  const double scale = (high - low) / 255.0;
  const double zero = std::nearbyint(-low / scale);
  double sum = 0;
  for (float x : samples) {
    double q = std::clamp(std::nearbyint(x / scale) + zero, 0.0, 255.0);
    double error = (q - zero) * scale - x;
    sum += error * error;
  }
  return sum / double(samples.size());
}

std::vector<float> normalSamples(size_t count, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> samples(count);
  for (float &x : samples)
    x = normal(random);
  return samples;
}

TEST(CalibrationHistogram, PercentileClipsEachTail) {
  std::vector<float> samples;
  for (int i = 0; i < 1000; ++i)
    samples.push_back(float(i) + 0.5f);
  CalibratedRange range = percentileRange(histogramOf(samples, 0, 1000, 1000), 99.0);
  EXPECT_FLOAT_EQ(range.min, 10.0f);
  EXPECT_FLOAT_EQ(range.max, 990.0f);
}

// The share of `samples` outside `range`.
double clippedShare(const std::vector<float> &samples, CalibratedRange range) {
  auto outside = std::count_if(samples.begin(), samples.end(),
                               [&](float x) { return x < range.min || x > range.max; });
  return double(outside) / double(samples.size());
}

// A few far outliers: min/max spends nearly every step on them; entropy
// clips them and quantizes the bulk (every element but them) finely.
TEST(CalibrationHistogram, EntropyClipsFarOutliers) {
  const std::vector<float> bulk = normalSamples(200000, 1);
  std::vector<float> samples = bulk;
  samples.insert(samples.end(), {-60.0f, 60.0f, 55.0f});
  CalibratedRange range = entropyRange(histogramOf(samples, -60, 60));
  EXPECT_LT(range.max, 20.0f);
  EXPECT_GT(range.max, 3.0f);
  EXPECT_GT(range.min, -20.0f);
  EXPECT_LT(range.min, -3.0f);
  EXPECT_LE(clippedShare(bulk, range), 1e-4);
  EXPECT_LT(quantizationError(bulk, range), 0.1 * quantizationError(bulk, {-60.0f, 60.0f}));
}

// Without outliers the range stays close to the data's extent: a uniform
// value loses information wherever it is clipped.
TEST(CalibrationHistogram, EntropyKeepsAUniformValueWhole) {
  std::vector<float> samples;
  for (int i = 0; i < 100000; ++i)
    samples.push_back(10.0f * float(i) / 100000.0f);
  CalibratedRange range = entropyRange(histogramOf(samples, 0, 10));
  EXPECT_EQ(range.min, 0.0f);
  EXPECT_GT(range.max, 9.5f);
}

// A post-ReLU value (zero and a long right tail) stays one-sided: the
// candidate ranges grow from zero.
TEST(CalibrationHistogram, EntropyKeepsAOneSidedValueOneSided) {
  std::vector<float> bulk = normalSamples(200000, 2);
  for (float &x : bulk)
    x = std::max(x, 0.0f);
  std::vector<float> samples = bulk;
  samples.push_back(40.0f);
  CalibratedRange range = entropyRange(histogramOf(samples, 0, 40));
  EXPECT_EQ(range.min, 0.0f);
  EXPECT_GT(range.max, 2.5f);
  EXPECT_LT(range.max, 15.0f);
  EXPECT_LE(clippedShare(bulk, range), 1e-4);
  EXPECT_LT(quantizationError(bulk, range), 0.1 * quantizationError(bulk, {0.0f, 40.0f}));
}

// Zero divides each candidate as it divides the histogram's bounds.
TEST(CalibrationHistogram, EntropyKeepsZerosPlace) {
  std::vector<float> samples = normalSamples(200000, 3);
  for (float &x : samples)
    x = x < 0 ? 0.25f * x : 3.0f * x;
  samples.insert(samples.end(), {-8.0f, 24.0f});
  CalibratedRange range = entropyRange(histogramOf(samples, -8, 24));
  EXPECT_LT(range.max, 24.0f);
  EXPECT_NEAR(-range.min / (range.max - range.min), 0.25, 0.01);
}

TEST(CalibrationHistogram, EmptyOrFlatHistogramKeepsItsBounds) {
  CalibrationHistogram empty{-1, 2, std::vector<uint64_t>(2048, 0)};
  CalibratedRange range = entropyRange(empty);
  EXPECT_EQ(range.min, -1.0f);
  EXPECT_EQ(range.max, 2.0f);
  CalibrationHistogram flat{3, 3, std::vector<uint64_t>(2048, 0)};
  range = entropyRange(flat);
  EXPECT_EQ(range.min, 3.0f);
  EXPECT_EQ(range.max, 3.0f);
}

} // namespace
} // namespace cuvil
