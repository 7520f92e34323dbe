// What the cost and tiling rules know of the CPU a piece of code will run
// on: its vector unit, caches, throughput and memory bandwidth. Every rule
// that would otherwise hold a number measured on one machine (a cache size,
// a register count, flops per byte) reads it from here, so that tuning for
// another CPU is one row of the table in CpuModel.cpp, or `--cpu native`.
#pragma once

#include "cuvil/support/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cuvil {

struct CpuModel {
  std::string name;           // the CPU it describes ("znver4", "x86-64-v4")
  std::string source;         // where the figures come from ("table", "host probe", ...)
  int vectorBits = 512;       // widest vector the generated code uses
  int vectorRegisters = 32;   // architectural vector registers at that width
  int fmaPerCycle = 2;        // vector FMAs one core issues per cycle, at vectorBits
  int loadsPerCycle = 2;      // vector loads one core issues per cycle
  int fmaLatency = 4;         // cycles from an FMA to its dependent one
  int64_t l1Bytes = 48 << 10; // L1 data cache per core
  int64_t l2Bytes = 1 << 20;  // L2 per core
  int64_t l3Bytes = 32 << 20; // last-level cache (shared)
  double ghz = 3.0;           // sustained clock under vector load
  double memoryGBps = 16.0;   // DRAM bandwidth one core streams
  int cores = 0;              // cores the code will run on; 0 when not known
  // vpdpbusd (AVX512-VNNI): four u8 x i8 products summed into each i32
  // lane in one instruction (the variant's features, not the table's).
  bool int8Dot = false;
  // vdpbf16ps (AVX512_BF16): two bf16 products summed into each f32 lane.
  bool bf16Dot = false;
  // vpmaddwd (x86-64): i16 pair products summed into i32 lanes in one
  // instruction. Without it (aarch64: smull, smull2, addp) each step's
  // widened products take registers of their own beside the tile.
  bool i16PairProducts = true;

  int vectorLanes() const { return vectorBits / 32; } // f32 lanes
  // f32 FMA peak of one core, in Gflop/s (an FMA is two flops).
  double peakGflops() const { return ghz * fmaPerCycle * vectorLanes() * 2; }
  // Flops one core can do in the time one byte arrives from memory.
  double flopsPerMemoryByte() const { return peakGflops() / memoryGBps; }
  // Ways a rule may split one operator's work across cores: the known core
  // count rounded up to a power of two (even shares for 1, 2, 4, ... threads),
  // or 8 when it is not known.
  int64_t parallelSlots() const;
};

// The model of a CPU by its LLVM name: the rows of the table (x86-64-v3 and
// x86-64-v4 stand for any CPU of that level), or an error listing them.
Expected<CpuModel> cpuModelFor(std::string_view cpu);
// The names the table knows.
std::vector<std::string_view> knownCpuModels();
// The table's generic model for a CPU of `triple`'s architecture, named
// `cpu`: aarch64-generic, or for x86-64 by its widest vector (512:
// x86-64-v4, else x86-64-v3).
CpuModel genericCpuModel(std::string_view triple, int vectorBits, std::string_view cpu);
// This machine: `base` (the table's row for its CPU, or a generic one) with
// its cache sizes and core count read from the host (sysfs, the affinity
// mask) where it reports them.
CpuModel probeHostCpuModel(CpuModel base);
// The model as lines of "field: value" text (`cuvil compile --print-cpu-model`).
std::string describeCpuModel(const CpuModel &cpu);

} // namespace cuvil
