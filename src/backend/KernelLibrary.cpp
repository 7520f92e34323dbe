#include "KernelLibrary.h"

#include <fmt/format.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

// Defined by EmbeddedKernels.S (.incbin of the bitcode built from src/kernels).
extern "C" const char cuvil_kernels_x86_64[];
extern "C" const unsigned long long cuvil_kernels_x86_64_size;

namespace cuvil {

Expected<std::unique_ptr<llvm::Module>> loadKernelLibrary(llvm::LLVMContext &context,
                                                          std::string_view triple) {
  if (triple.rfind("x86_64", 0) != 0)
    return Status::error(fmt::format("no kernels were built for {}", triple));
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(cuvil_kernels_x86_64, size_t(cuvil_kernels_x86_64_size)), "kernels");
  // Lazily: a function's body is read only when the link needs it, so a
  // small model does not pay for parsing every kernel (27 MB of bitcode).
  llvm::Expected<std::unique_ptr<llvm::Module>> module =
      llvm::getLazyBitcodeModule(buffer, context);
  if (!module)
    return Status::error("corrupt embedded kernel bitcode: " + llvm::toString(module.takeError()));
  return std::move(*module);
}

} // namespace cuvil
