#include "cuvil/backend/Target.h"

#include <array>
#include <fmt/format.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <memory>

namespace cuvil {
namespace {

struct TargetEntry {
  std::string_view name;
  std::string_view triple;
  // The default variants, best first: (name, CPU).
  std::array<std::pair<std::string_view, std::string_view>, 2> defaultVariants;
};

constexpr std::array<TargetEntry, 1> kTargets = {{
    {"x86_64-linux",
     "x86_64-unknown-linux-gnu",
     {{{"avx512", "x86-64-v4"}, {"avx2", "x86-64-v3"}}}},
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

  // Fills in a variant's vector width and ISA level from its features.
  auto describe = [&](IsaVariant variant) -> Expected<IsaVariant> {
    std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
        llvmTarget->createMCSubtargetInfo(config.triple, variant.cpu, variant.features));
    if (!subtarget || !subtarget->isCPUStringValid(variant.cpu))
      return Status::error(fmt::format("unknown CPU '{}' for target {}", variant.cpu, config.name));
    bool avx2 = subtarget->checkFeatures("+avx2,+fma");
    bool avx512 = subtarget->checkFeatures("+avx512f,+avx512bw,+avx512dq,+avx512vl,+avx512cd");
    variant.vectorBits = avx512 ? 512 : (avx2 ? 256 : 128);
    variant.level = avx512 ? 2 : (avx2 ? 1 : 0);
    Expected<CpuModel> known = cpuModelFor(variant.cpu);
    variant.cpuModel = known ? *known : genericCpuModel(variant.vectorBits, variant.cpu);
    // The code uses the widest vectors the variant's features allow.
    variant.cpuModel.vectorBits = variant.vectorBits;
    variant.cpuModel.vectorRegisters = avx512 ? 32 : 16;
    return variant;
  };

  if (cpu.empty()) {
    std::vector<std::string> cpus;
    for (const auto &[name, variantCpu] : entry->defaultVariants) {
      Expected<IsaVariant> variant =
          describe({.name = std::string(name), .cpu = std::string(variantCpu)});
      CUVIL_TRY(variant.status());
      config.variants.push_back(*variant);
      cpus.push_back(std::string(variantCpu));
    }
    config.cpu = fmt::format("{}", fmt::join(cpus, " + "));
    return config;
  }
  IsaVariant single{.name = std::string(cpu), .cpu = std::string(cpu)};
  if (cpu == "native") {
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

} // namespace cuvil
