#include "KernelLibrary.h"

#include "EmbeddedFiles.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

namespace cuvil {

Expected<std::unique_ptr<llvm::Module>> loadKernelLibrary(llvm::LLVMContext &context,
                                                          std::string_view triple) {
  Expected<std::string_view> bitcode = embeddedFile(triple, EmbeddedKind::Kernels);
  CUVIL_TRY(bitcode.status());
  llvm::MemoryBufferRef buffer(llvm::StringRef(bitcode->data(), bitcode->size()), "kernels");
  // Lazily: a function's body is read only when the link needs it, so a
  // small model does not pay for parsing every kernel (27 MB of bitcode).
  llvm::Expected<std::unique_ptr<llvm::Module>> module =
      llvm::getLazyBitcodeModule(buffer, context);
  if (!module)
    return Status::error("corrupt embedded kernel bitcode: " + llvm::toString(module.takeError()));
  return std::move(*module);
}

} // namespace cuvil
