// Subnormal results are flushed to zero on the threads that run kernels, and
// only there: the setting is per thread.
#include "FloatEnvironment.h"
#include "ThreadPool.h"

#include <gtest/gtest.h>
#include <thread>

using namespace cuvil::runtime;

namespace {

// 1e-30 * 1e-10 is subnormal (below 1.18e-38) unless flushed to zero.
float tinyProduct() {
  volatile float tiny = 1e-30f;
  return tiny * 1e-10f;
}

float gProducts[2];

void recordTinyProducts(void *, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    gProducts[i] = tinyProduct();
}

TEST(FloatEnvironment, FlushesOnTheCallingThreadOnly) {
  // A fresh thread, so that the test process's own threads keep the default.
  std::thread([] {
    EXPECT_NE(tinyProduct(), 0.0f);
    flushSubnormalsToZero();
    EXPECT_EQ(tinyProduct(), 0.0f);
  }).join();
  EXPECT_NE(tinyProduct(), 0.0f);
}

TEST(FloatEnvironment, PoolWorkersFlush) {
  ThreadPool pool(2);
  pool.parallelFor(recordTinyProducts, nullptr, 2); // the caller runs index 0, the worker index 1
  EXPECT_NE(gProducts[0], 0.0f);
  EXPECT_EQ(gProducts[1], 0.0f);
}

} // namespace
