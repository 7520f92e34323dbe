#ifndef CUVIL_RUNTIME_CLOCK_H
#define CUVIL_RUNTIME_CLOCK_H

#include <cstdint>
#include <ctime>

namespace cuvil::runtime {

/// Nanoseconds on the monotonic clock: clock_gettime directly, which needs no
/// C++ runtime library (std::chrono's clocks live in libstdc++).
inline int64_t monotonicNs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

} // namespace cuvil::runtime

#endif // CUVIL_RUNTIME_CLOCK_H
