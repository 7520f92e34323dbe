#include "cuvil/backend/Target.h"

#include <array>
#include <fmt/format.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <memory>
#include <vector>

namespace cuvil {
namespace {

struct DefaultVariant {
  std::string_view name, cpu, features;
  VariantUse use;
};

struct TargetEntry {
  std::string_view name;
  std::string_view triple;
  // The default variants, best first.
  std::vector<DefaultVariant> defaultVariants;
};

// AVX512-VNNI (Cascade Lake, Ice Lake, Sapphire Rapids, Zen 4 and later)
// changes only the integer kernels and AVX512_BF16 (Cooper Lake, Sapphire
// Rapids, Zen 4 and later, all with VNNI) only the bf16 GEMM, so each is a
// variant of its own for models that use them rather than a requirement of
// the AVX-512 one (Skylake-SP has AVX-512 without either).
//
// aarch64: NEON (Advanced SIMD) is part of ARMv8-A, so the NEON variant
// runs on every aarch64 CPU; the SVE one runs where HWCAP_SVE is set, at
// whatever vector length the CPU has: its loops are vector-length agnostic
// (LLVM vectorises them with scalable vectors after specialisation), while
// the register tiles keep their NEON (v0-v31) form, which SVE CPUs run as
// well.
const std::array<TargetEntry, 2> kTargets = {{
    {"x86_64-linux",
     "x86_64-unknown-linux-gnu",
     {{"avx512bf16", "x86-64-v4", "+avx512vnni,+avx512bf16", VariantUse::Bf16Products},
      {"avx512vnni", "x86-64-v4", "+avx512vnni", VariantUse::IntegerProducts},
      {"avx512", "x86-64-v4", "", VariantUse::Always},
      {"avx2", "x86-64-v3", "", VariantUse::Always}}},
    {"aarch64-linux",
     "aarch64-unknown-linux-gnu",
     {{"sve", "generic", "+sve", VariantUse::Always},
      {"neon", "generic", "+neon", VariantUse::Always}}},
}};

// The host's features as an LLVM feature string (for --cpu native).
std::string hostFeatures() {
  std::string features;
  for (const auto &entry : llvm::sys::getHostCPUFeatures())
    features += fmt::format("{}{},", entry.second ? '+' : '-', entry.first().str());
  if (!features.empty())
    features.pop_back();
  return features;
}

// "x86-64-v4 + x86-64-v3": each variant's CPU and added features.
std::string variantCpus(const std::vector<IsaVariant> &variants) {
  std::vector<std::string> cpus;
  for (const IsaVariant &variant : variants)
    cpus.push_back(variant.features.empty() ? variant.cpu
                                            : fmt::format("{} {}", variant.cpu, variant.features));
  return fmt::format("{}", fmt::join(cpus, " + "));
}

} // namespace

Expected<TargetConfig> resolveTarget(std::string_view target, std::string_view cpu) {
  const TargetEntry *entry = nullptr;
  for (const TargetEntry &candidate : kTargets)
    if (candidate.name == target)
      entry = &candidate;
  if (!entry) {
    std::string known;
    for (const TargetEntry &candidate : kTargets)
      known += fmt::format("{}{}", known.empty() ? "" : ", ", candidate.name);
    return Status::error(fmt::format("unknown target '{}' (known: {})", target, known));
  }
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();

  TargetConfig config;
  config.name = std::string(entry->name);
  config.triple = std::string(entry->triple);
  std::string error;
  const llvm::Target *llvmTarget = llvm::TargetRegistry::lookupTarget(config.triple, error);
  if (!llvmTarget)
    return Status::error(fmt::format("LLVM has no backend for {}: {}", config.triple, error));

  const bool aarch64 = config.triple.starts_with("aarch64");
  // Fills in a variant's vector width and ISA level from its features.
  auto describe = [&](IsaVariant variant) -> Expected<IsaVariant> {
    std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
        llvmTarget->createMCSubtargetInfo(config.triple, variant.cpu, variant.features));
    if (!subtarget || !subtarget->isCPUStringValid(variant.cpu))
      return Status::error(fmt::format("unknown CPU '{}' for target {}", variant.cpu, config.name));
    Expected<CpuModel> known = cpuModelFor(variant.cpu);
    if (aarch64) {
      // The register tiles are written in 128-bit NEON vectors, 32 of them
      // (SVE's minimum length, and its z registers' low halves).
      variant.vectorBits = 128;
      variant.level = subtarget->checkFeatures("+sve") ? 1 : 0;
      variant.cpuModel = known ? *known : genericCpuModel(config.triple, 128, variant.cpu);
      variant.cpuModel.vectorBits = 128;
      variant.cpuModel.vectorRegisters = 32;
      variant.cpuModel.i16PairProducts = false;
      return variant;
    }
    bool avx2 = subtarget->checkFeatures("+avx2,+fma");
    bool avx512 = subtarget->checkFeatures("+avx512f,+avx512bw,+avx512dq,+avx512vl,+avx512cd");
    bool vnni = avx512 && subtarget->checkFeatures("+avx512vnni");
    bool bf16 = vnni && subtarget->checkFeatures("+avx512bf16");
    variant.vectorBits = avx512 ? 512 : (avx2 ? 256 : 128);
    variant.level = bf16 ? 4 : (vnni ? 3 : (avx512 ? 2 : (avx2 ? 1 : 0)));
    variant.cpuModel =
        known ? *known : genericCpuModel(config.triple, variant.vectorBits, variant.cpu);
    // The code uses the widest vectors the variant's features allow.
    variant.cpuModel.vectorBits = variant.vectorBits;
    variant.cpuModel.vectorRegisters = avx512 ? 32 : 16;
    variant.cpuModel.int8Dot = vnni;
    variant.cpuModel.bf16Dot = bf16;
    return variant;
  };

  if (cpu.empty()) {
    for (const DefaultVariant &entryVariant : entry->defaultVariants) {
      Expected<IsaVariant> variant = describe({.name = std::string(entryVariant.name),
                                               .cpu = std::string(entryVariant.cpu),
                                               .features = std::string(entryVariant.features),
                                               .use = entryVariant.use});
      CUVIL_TRY(variant.status());
      config.variants.push_back(*variant);
    }
    config.cpu = variantCpus(config.variants);
    return config;
  }
  IsaVariant single{.name = std::string(cpu), .cpu = std::string(cpu)};
  if (cpu == "native") {
    std::string host = llvm::sys::getProcessTriple();
    if (host.substr(0, host.find('-')) != config.triple.substr(0, config.triple.find('-')))
      return Status::error(fmt::format(
          "--cpu native names this machine's CPU ({}), which cannot run {} code; name the "
          "target's CPU instead",
          host, config.name));
    single.cpu = llvm::sys::getHostCPUName().str();
    single.name = single.cpu;
    single.features = hostFeatures();
  }
  Expected<IsaVariant> variant = describe(single);
  CUVIL_TRY(variant.status());
  if (cpu == "native")
    variant->cpuModel = probeHostCpuModel(variant->cpuModel);
  config.variants.push_back(*variant);
  config.cpu = variant->cpu;
  return config;
}

Expected<CpuModel> compiledCpuModel(std::string_view cpu) {
  for (std::string_view target : {"x86_64-linux", "aarch64-linux"})
    if (Expected<TargetConfig> config = resolveTarget(target, cpu))
      return config->cpuModel();
  return cpuModelFor(cpu);
}

TargetConfig variantsFor(const TargetConfig &target, DotProducts products) {
  TargetConfig config = target;
  // (A named CPU's one variant is always used: its name stays as given.)
  if (std::erase_if(config.variants, [&](const IsaVariant &variant) {
        return (variant.use == VariantUse::IntegerProducts && !products.int8) ||
               (variant.use == VariantUse::Bf16Products && !products.bf16);
      }) > 0)
    config.cpu = variantCpus(config.variants);
  return config;
}

} // namespace cuvil
