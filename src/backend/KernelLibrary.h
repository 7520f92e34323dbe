// Access to the microkernel bitcode embedded in the compiler at build time.
#pragma once

#include "cuvil/support/Status.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <memory>
#include <string_view>

namespace cuvil {

// The kernels compiled for `triple`, in `context`; function bodies are
// materialised on demand (the kernel link does it for the ones it needs).
Expected<std::unique_ptr<llvm::Module>> loadKernelLibrary(llvm::LLVMContext &context,
                                                          std::string_view triple);

} // namespace cuvil
