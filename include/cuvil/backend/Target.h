// Targets the backend can compile for, by the name users pass to --target.
#pragma once

#include "cuvil/support/Status.h"

#include <string>
#include <string_view>

namespace cuvil {

struct TargetConfig {
  std::string name;     // "x86_64-linux"
  std::string triple;   // "x86_64-unknown-linux-gnu"
  std::string cpu;      // resolved CPU ("native" becomes the host CPU's name)
  std::string features; // LLVM feature string, empty for the CPU's defaults
  int vectorBits = 128; // widest vector the generated code should prefer
};

// Resolves a --target / --cpu pair; an empty cpu picks the target's default.
Expected<TargetConfig> resolveTarget(std::string_view target, std::string_view cpu);

} // namespace cuvil
