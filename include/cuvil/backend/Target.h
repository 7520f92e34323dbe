// Targets the backend can compile for, by the name users pass to --target.
#pragma once

#include "cuvil/lowering/Lowering.h"
#include "cuvil/support/Status.h"
#include "cuvil/target/CpuModel.h"

#include <string>
#include <string_view>
#include <vector>

namespace cuvil {

// Products some kernels form faster on some CPUs: a variant for them is
// worth its compile time only in models that have such products.
enum class VariantUse { Always, IntegerProducts, Bf16Products };

// One instruction-set variant of the generated code. An executable carries
// every variant of its target and runs the best one the CPU supports
// (chosen at start-up through cuvil_isa_level, see ModelABI.h).
struct IsaVariant {
  std::string name;       // "avx512", "avx2", or the CPU's name when it is alone
  std::string cpu;        // LLVM CPU: "x86-64-v4"
  std::string features{}; // LLVM feature string, empty for the CPU's defaults
  int vectorBits = 128;   // widest vector the code should prefer
  int level = 0;          // cuvil_isa_level the CPU needs: 4 AVX-512 BF16, 3 AVX-512 VNNI,
                          // 2 AVX-512, 1 AVX2+FMA; aarch64: 1 SVE, 0 NEON
  // What the variant adds over the next one (vpdpbusd, vdpbf16ps): it is
  // compiled only into models that use it.
  VariantUse use = VariantUse::Always;
  CpuModel cpuModel{}; // what the tiling and cost rules tune this variant's code for
};

struct TargetConfig {
  std::string name;   // "x86_64-linux"
  std::string triple; // "x86_64-unknown-linux-gnu"
  std::string cpu;    // as requested ("x86-64-v4 + x86-64-v3" for the default pair)
  // Best first; the last is the fallback.
  std::vector<IsaVariant> variants;
  // The widest variant's CPU model, which graph-level decisions (layout,
  // fusion, Winograd) use; each variant's lowering uses its own.
  const CpuModel &cpuModel() const { return variants.front().cpuModel; }
};

// Resolves a --target / --cpu pair. No --cpu gives the target's default
// variants (x86_64-linux: AVX-512 with BF16, with VNNI, AVX-512, AVX2, tuned for the
// generic x86-64-v4 and x86-64-v3 CPU models; aarch64-linux: SVE and NEON, tuned
// for aarch64-generic); a CPU name gives one variant
// for that CPU (its row of the CPU model table, or the generic model of its
// ISA level), "native" one for this machine (its caches and cores probed).
Expected<TargetConfig> resolveTarget(std::string_view target, std::string_view cpu);

// The CPU model a compile for the named CPU tunes for (its one variant's:
// the table's row with the vector width and dot products of its features),
// for a CPU of the x86-64 or aarch64 target; the table's row for a generic
// one (aarch64-generic).
Expected<CpuModel> compiledCpuModel(std::string_view cpu);

// The target less the variants whose use the model's kernels do not have.
TargetConfig variantsFor(const TargetConfig &target, DotProducts products);

} // namespace cuvil
