#include "cuvil/backend/Version.h"

#include <fmt/format.h>
#include <llvm/Config/llvm-config.h>

namespace cuvil {

std::string compilerVersion() {
  return fmt::format("cuvil {} (LLVM {})", CUVIL_VERSION, LLVM_VERSION_STRING);
}

} // namespace cuvil
