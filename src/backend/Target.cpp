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
  std::string_view defaultCpu;
};

constexpr std::array<TargetEntry, 1> kTargets = {{
    {"x86_64-linux", "x86_64-unknown-linux-gnu", "x86-64-v4"},
}};

// The host's features as an LLVM feature string (for --cpu native).
std::string hostFeatures() {
  std::string features;
  for (const auto &entry : llvm::sys::getHostCPUFeatures())
    features += (entry.second ? "+" : "-") + entry.first().str() + ",";
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
  config.cpu = cpu.empty() ? std::string(entry->defaultCpu) : std::string(cpu);
  if (config.cpu == "native") {
    config.cpu = llvm::sys::getHostCPUName().str();
    config.features = hostFeatures();
  }
  std::string error;
  const llvm::Target *llvmTarget = llvm::TargetRegistry::lookupTarget(config.triple, error);
  if (!llvmTarget)
    return Status::error(fmt::format("LLVM has no backend for {}: {}", config.triple, error));
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      llvmTarget->createMCSubtargetInfo(config.triple, config.cpu, config.features));
  if (!subtarget || !subtarget->isCPUStringValid(config.cpu))
    return Status::error(fmt::format("unknown CPU '{}' for target {}", config.cpu, config.name));
  if (subtarget->checkFeatures("+avx512f"))
    config.vectorBits = 512;
  else if (subtarget->checkFeatures("+avx2"))
    config.vectorBits = 256;
  return config;
}

} // namespace cuvil
