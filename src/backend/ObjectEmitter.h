// LLVM target machine setup, the O3 pipeline and machine-code emission.
#pragma once

#include "cuvil/backend/Target.h"
#include "cuvil/support/Status.h"

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>
#include <memory>
#include <string>

namespace cuvil {

Expected<std::unique_ptr<llvm::TargetMachine>> createTargetMachine(const TargetConfig &target);
// Every function gets the target CPU, features and vector width, so the
// kernels (compiled for a generic CPU) are optimised for the real one; a
// function two variants call is first copied, one copy per variant.
void applyTargetAttributes(llvm::Module &module, const TargetConfig &target);
void optimiseModule(llvm::Module &module, llvm::TargetMachine &machine);
Status emitMachineCode(llvm::Module &module, llvm::TargetMachine &machine, const std::string &path,
                       bool assembly);
Status writeLLVMIR(const llvm::Module &module, const std::string &path);

} // namespace cuvil
