// A pass transforms a graph in place. Passes are listed as data in the
// pipeline table (Pipeline.cpp); each has a name for --print-after and for
// `cuvil opt --passes=...`, which the lit tests use.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/passes/Precision.h"
#include "cuvil/support/Status.h"
#include "cuvil/target/CpuModel.h"

#include <string_view>

namespace cuvil {

// Numbers the memory planner reports (bytes).
struct MemoryPlanStats {
  uint64_t arenaBytes = 0;
  uint64_t intermediateBytes = 0; // sum over every intermediate tensor
  uint64_t maxLiveBytes = 0;      // lower bound: most bytes live at one time
};

// State shared by the passes of one pipeline run.
struct PassContext {
  // The CPU of the target's widest variant: every rule that picks a layout,
  // a tile or a cost trade-off reads it (`cuvil compile` takes it from
  // --cpu, `cuvil opt` likewise).
  CpuModel cpu = *cpuModelFor("x86-64-v4");
  // Channels per block of the NCHWc layout: one vector of the widest variant,
  // 16 when it has AVX-512, else 8. The default x86-64 target (AVX-512 with
  // an AVX2 fallback) uses 16 for both variants, which then share packed
  // weights; on AVX2 a 16-channel block takes two registers.
  int64_t channelBlock() const { return cpu.vectorBits >= 512 ? 16 : 8; }
  // Use Winograd F(4x4, 3x3) for eligible convolutions (--no-winograd).
  bool winograd = true;
  // What assign-precision quantizes (--precision, the calibrated ranges).
  PrecisionOptions precision;
  PrecisionStats precisionStats;
  MemoryPlanStats memory;
};

using PassFn = Status (*)(Graph &, PassContext &);

// How a pass treats the regions of control-flow nodes (If, Loop, Scan).
enum class RegionScope : uint8_t {
  EachGraph, // the pipeline runs it on every region first, then on the graph
  Itself,    // it visits regions itself (typing them from their node, planning them in its scratch)
};

struct PassInfo {
  std::string_view name;
  std::string_view summary;
  PassFn run;
  RegionScope regions = RegionScope::EachGraph;
};

} // namespace cuvil
