#include "WorkEstimate.h"

#include "cuvil/ir/Graph.h"

#include <algorithm>

namespace cuvil {

Dim estimatedWorkNs(const CpuModel &cpu, const std::vector<KernelArg> &args, const Dim &flops) {
  std::vector<const Value *> buffers;
  Dim bytes = 0;
  for (const KernelArg &arg : args)
    if (arg.kind() == KernelArg::Kind::Pointer && arg.value() &&
        std::find(buffers.begin(), buffers.end(), arg.value()) == buffers.end()) {
      buffers.push_back(arg.value());
      bytes += arg.value()->type().byteSize();
    }
  auto perNs = [](double rate) { return Dim(std::max<int64_t>(1, int64_t(rate))); };
  return maxDim(floorDiv(bytes, perNs(cpu.vectorBits / 8 * cpu.ghz)),
                floorDiv(flops, perNs(cpu.peakGflops())));
}

} // namespace cuvil
