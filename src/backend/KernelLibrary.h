// Access to the microkernel bitcode embedded in the compiler at build time.
#pragma once

#include "cuvil/support/Status.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <memory>
#include <string_view>

namespace cuvil {

// Parses the kernels compiled for `triple` into `context`.
Expected<std::unique_ptr<llvm::Module>> loadKernelLibrary(llvm::LLVMContext &context,
                                                          std::string_view triple);

} // namespace cuvil
