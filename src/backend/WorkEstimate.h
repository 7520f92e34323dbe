// The estimate of a kernel call's time that the generated code passes to
// cuvil_parallel_for: the thread pool's split decision and --profile's bound.
#pragma once

#include "cuvil/ir/Dim.h"
#include "cuvil/lowering/KernelCall.h"
#include "cuvil/target/CpuModel.h"

#include <vector>

namespace cuvil {

// A kernel call's time on one core in ns, at its bottleneck's speed: its
// buffers streamed once from cache at a vector per cycle, or its flops at
// the FMA peak. Optimistic on purpose: the thread pool runs a call on one
// thread only when even this is too short to repay a split.
Dim estimatedWorkNs(const CpuModel &cpu, const std::vector<KernelArg> &args, const Dim &flops);

} // namespace cuvil
