#include "cuvil/target/CpuModel.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace cuvil {
namespace {

constexpr int64_t KiB = 1 << 10, MiB = 1 << 20;

struct CpuRow {
  std::string_view name;
  int vectorBits, vectorRegisters, fmaPerCycle, loadsPerCycle, fmaLatency;
  int64_t l1Bytes, l2Bytes, l3Bytes;
  double ghz, memoryGBps;
};

// Per core: vector FMAs and loads issued per cycle at the widest width the
// code uses, FMA latency, caches, sustained clock under vector load and the
// DRAM bandwidth one core streams (vendor optimisation manuals; the last two
// are typical server parts'). x86-64-v3 and x86-64-v4 stand for any CPU of
// their level; their rows are what the default target's two variants are
// tuned for: the v4 row reproduces the figures the kernels were tuned with
// on the development VMs (Zen 5, Sapphire Rapids: 48 KiB L1, 1 MiB of L2
// per core counted on, 12 flops per streamed byte).
constexpr std::array<CpuRow, 22> kCpus = {{
    // name            bits regs fma ld lat L1        L2          L3        GHz  GB/s
    {"x86-64-v3", 256, 16, 2, 2, 4, 32 * KiB, 512 * KiB, 16 * MiB, 3.0, 16},
    {"x86-64-v4", 512, 32, 2, 2, 4, 48 * KiB, 1 * MiB, 32 * MiB, 3.0, 16},
    {"haswell", 256, 16, 2, 2, 5, 32 * KiB, 256 * KiB, 8 * MiB, 3.0, 12},
    {"broadwell", 256, 16, 2, 2, 5, 32 * KiB, 256 * KiB, 8 * MiB, 3.0, 12},
    {"skylake", 256, 16, 2, 2, 4, 32 * KiB, 256 * KiB, 8 * MiB, 3.5, 15},
    {"skylake-avx512", 512, 32, 2, 2, 4, 32 * KiB, 1 * MiB, 32 * MiB, 2.5, 12},
    {"cascadelake", 512, 32, 2, 2, 4, 32 * KiB, 1 * MiB, 32 * MiB, 2.8, 12},
    {"icelake-server", 512, 32, 2, 2, 4, 48 * KiB, 1280 * KiB, 48 * MiB, 2.8, 14},
    {"sapphirerapids", 512, 32, 2, 2, 4, 48 * KiB, 2 * MiB, 64 * MiB, 3.4, 16},
    {"graniterapids", 512, 32, 2, 2, 4, 48 * KiB, 2 * MiB, 64 * MiB, 3.4, 16},
    {"znver2", 256, 16, 2, 2, 5, 32 * KiB, 512 * KiB, 16 * MiB, 3.3, 20},
    {"znver3", 256, 16, 2, 2, 4, 32 * KiB, 512 * KiB, 32 * MiB, 3.5, 20},
    // Zen 4 runs a 512-bit FMA or load as two 256-bit halves.
    {"znver4", 512, 32, 1, 1, 4, 32 * KiB, 1 * MiB, 32 * MiB, 3.7, 20},
    {"znver5", 512, 32, 2, 2, 4, 48 * KiB, 1 * MiB, 32 * MiB, 3.7, 20},
    // aarch64, at NEON's 128 bits (the width the generated code's register
    // tiles use; a 256-bit SVE pipe counts as two). aarch64-generic stands
    // for any aarch64 CPU (the default target's variants).
    {"aarch64-generic", 128, 32, 2, 2, 4, 64 * KiB, 1 * MiB, 32 * MiB, 2.5, 12},
    {"cortex-a72", 128, 32, 2, 1, 7, 32 * KiB, 512 * KiB, 1 * MiB, 1.8, 6},
    {"cortex-a78", 128, 32, 2, 2, 4, 64 * KiB, 512 * KiB, 4 * MiB, 2.4, 10},
    {"neoverse-n1", 128, 32, 2, 2, 4, 64 * KiB, 1 * MiB, 32 * MiB, 2.6, 12},
    {"neoverse-n2", 128, 32, 2, 2, 4, 64 * KiB, 1 * MiB, 32 * MiB, 3.0, 14},
    {"neoverse-v1", 128, 32, 4, 3, 4, 64 * KiB, 1 * MiB, 32 * MiB, 2.6, 16},
    {"neoverse-v2", 128, 32, 4, 3, 4, 64 * KiB, 2 * MiB, 36 * MiB, 2.8, 16},
    // A64FX: two 512-bit FMA pipes, 9-cycle FMAs, 8 MiB of L2 per 12 cores, HBM.
    {"a64fx", 128, 32, 2, 2, 9, 64 * KiB, 640 * KiB, 8 * MiB, 2.0, 20},
}};

CpuModel fromRow(const CpuRow &row) {
  CpuModel cpu;
  cpu.name = std::string(row.name);
  cpu.source = "table";
  cpu.vectorBits = row.vectorBits;
  cpu.vectorRegisters = row.vectorRegisters;
  cpu.fmaPerCycle = row.fmaPerCycle;
  cpu.loadsPerCycle = row.loadsPerCycle;
  cpu.fmaLatency = row.fmaLatency;
  cpu.l1Bytes = row.l1Bytes;
  cpu.l2Bytes = row.l2Bytes;
  cpu.l3Bytes = row.l3Bytes;
  cpu.ghz = row.ghz;
  cpu.memoryGBps = row.memoryGBps;
  return cpu;
}

std::string bytesText(int64_t bytes) {
  if (bytes % MiB == 0)
    return fmt::format("{} MiB", bytes / MiB);
  return fmt::format("{} KiB", bytes / KiB);
}

} // namespace

int64_t CpuModel::parallelSlots() const {
  if (cores <= 0)
    return 8;
  int64_t slots = 1;
  while (slots < cores)
    slots *= 2;
  return slots;
}

Expected<CpuModel> cpuModelFor(std::string_view cpu) {
  for (const CpuRow &row : kCpus)
    if (row.name == cpu)
      return fromRow(row);
  return Status::error(
      fmt::format("no CPU model for '{}' (known: {})", cpu, fmt::join(knownCpuModels(), ", ")));
}

std::vector<std::string_view> knownCpuModels() {
  std::vector<std::string_view> names;
  for (const CpuRow &row : kCpus)
    names.push_back(row.name);
  return names;
}

CpuModel genericCpuModel(std::string_view triple, int vectorBits, std::string_view cpu) {
  std::string_view row = triple.starts_with("aarch64")
                             ? "aarch64-generic"
                             : (vectorBits >= 512 ? "x86-64-v4" : "x86-64-v3");
  CpuModel model = *cpuModelFor(row);
  model.source = fmt::format("no row for it: the {} row", model.name);
  model.name = std::string(cpu);
  return model;
}

std::string describeCpuModel(const CpuModel &cpu) {
  return fmt::format("cpu model: {} ({})\n"
                     "  vector: {} bits, {} registers; per cycle {} FMAs, {} loads; "
                     "FMA latency {}\n"
                     "  caches: L1d {}, L2 {} per core, L3 {}\n"
                     "  clock {:.1f} GHz: {:.0f} GFLOP/s f32 per core; memory {:.0f} GB/s per "
                     "core ({:.1f} flops per byte)\n"
                     "  cores: {}\n"
                     "  8-bit products: {}; bf16 products: {}\n",
                     cpu.name, cpu.source, cpu.vectorBits, cpu.vectorRegisters, cpu.fmaPerCycle,
                     cpu.loadsPerCycle, cpu.fmaLatency, bytesText(cpu.l1Bytes),
                     bytesText(cpu.l2Bytes), bytesText(cpu.l3Bytes), cpu.ghz, cpu.peakGflops(),
                     cpu.memoryGBps, cpu.flopsPerMemoryByte(),
                     cpu.cores > 0 ? fmt::format("{}", cpu.cores)
                                   : std::string("not known (rules assume up to 8)"),
                     cpu.int8Dot           ? "vpdpbusd (VNNI)"
                     : cpu.i16PairProducts ? "vpmaddubsw + vpmaddwd"
                                           : "widening multiplies (smull, addp)",
                     cpu.bf16Dot ? "vdpbf16ps" : "none (bf16 weights widened to f32)");
}

} // namespace cuvil
