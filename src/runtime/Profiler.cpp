#include "Profiler.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace cuvil::runtime {
namespace {

bool active = false;
std::vector<int64_t> totalNs, boundNs;
std::vector<bool> bounded; // the call came with an estimate

} // namespace

void Profiler::enable(uint32_t calls) {
  active = true;
  totalNs.assign(calls, 0);
  boundNs.assign(calls, 0);
  bounded.assign(calls, false);
}

bool Profiler::enabled() { return active; }

void Profiler::reset() {
  std::fill(totalNs.begin(), totalNs.end(), 0);
  std::fill(boundNs.begin(), boundNs.end(), 0);
}

void Profiler::record(int64_t call, int64_t nanoseconds, int64_t bound) {
  if (call < 0 || size_t(call) >= totalNs.size())
    return;
  totalNs[size_t(call)] += nanoseconds;
  if (bound >= 0) {
    boundNs[size_t(call)] += bound;
    bounded[size_t(call)] = true;
  }
}

void Profiler::print(FILE *out, const cuvil_path_info &path, uint64_t runs) {
  std::vector<size_t> order(totalNs.size());
  std::iota(order.begin(), order.end(), 0);
  // Equal times in call order (std::sort: stable_sort's temporary buffer
  // is deprecated in the libstdc++ the aarch64 runtime builds against).
  std::sort(order.begin(), order.end(), [](size_t a, size_t b) {
    return totalNs[a] != totalNs[b] ? totalNs[a] > totalNs[b] : a < b;
  });
  double all = double(std::accumulate(totalNs.begin(), totalNs.end(), int64_t(0)));
  std::fprintf(out, "profile: %zu kernel calls per run, %.3f ms in kernels per run\n",
               totalNs.size(), all / double(runs) * 1e-6);
  // bound: the call's time at its bottleneck's speed (its buffers at a vector
  // per cycle from cache, or its flops at the FMA peak, from the CPU model);
  // "of bound" is how close the call came to it.
  std::fprintf(out, "%8s %7s %8s %8s %6s  %s\n", "ms/run", "share", "bound", "of bound", "call",
               "what");
  for (size_t i : order) {
    const char *name = i < path.num_kernel_calls ? path.kernel_call_names[i] : "?";
    std::fprintf(out, "%8.3f %6.1f%% ", double(totalNs[i]) / double(runs) * 1e-6,
                 all > 0 ? 100.0 * double(totalNs[i]) / all : 0.0);
    if (bounded[i] && totalNs[i] > 0)
      std::fprintf(out, "%8.3f %7.1f%%", double(boundNs[i]) / double(runs) * 1e-6,
                   100.0 * double(boundNs[i]) / double(totalNs[i]));
    else
      std::fprintf(out, "%8s %8s", "-", "-");
    std::fprintf(out, " %6zu  %s\n", i, name);
  }
}

} // namespace cuvil::runtime
