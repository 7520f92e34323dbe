// Builds the LLVM module of a planned graph: globals for the arena, weights
// and I/O table, one task function per kernel call, specialised kernels, and
// `cuvil_run` calling the tasks in graph order through the thread pool.
#pragma once

#include "cuvil/backend/Target.h"
#include "cuvil/backend/WeightsObject.h"
#include "cuvil/ir/Graph.h"
#include "cuvil/lowering/Lowering.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace cuvil {

// Where each constant lives in the weights blob.
struct WeightsLayout {
  std::unordered_map<const Value *, uint64_t> offsets;
  std::vector<WeightsPiece> pieces; // in offset order
  uint64_t totalBytes = 0;
};

class ModuleBuilder final : public LoweringContext {
public:
  ModuleBuilder(llvm::Module &module, const llvm::Module &kernels, const Graph &graph,
                const TargetConfig &target);

  // Lowers every node into calls from `cuvil_run`; errors name the node.
  Status build();

  const WeightsLayout &weights() const { return weights_; }
  uint64_t arenaBytes() const { return arenaBytes_; }
  size_t kernelCalls() const { return kernelCalls_; }
  size_t specialisations() const { return specialisations_.size(); }
  // "<op> '<node>' <kernel>" for each kernel call, in call order.
  const std::vector<std::string> &kernelCallNames() const { return kernelCallNames_; }
  // Calls of specialised kernels, to be inlined once the kernels are linked.
  const std::vector<llvm::CallInst *> &kernelCallSites() const { return kernelCallSites_; }

  // LoweringContext
  bool storedAt(const Value *part, const Value *whole, uint64_t byteOffset) const override;
  const CpuModel &cpu() const override { return variant_->cpuModel; }

  // Functions of one ISA variant carry its name in this attribute until
  // applyTargetAttributes gives them the variant's CPU and features.
  static constexpr const char *kVariantAttribute = "cuvil-isa";

protected:
  Status emitKernelCall(const KernelRef &kernel, std::vector<KernelArg> args,
                        int64_t numTasks) override;

private:
  llvm::Function *specialise(llvm::Function *kernel, const std::vector<KernelArg> &args);
  llvm::Value *address(llvm::IRBuilder<> &builder, const KernelArg &arg);
  llvm::Constant *paramBlock(const KernelArg &arg);
  void emitDispatcher(const std::vector<llvm::Function *> &variantRuns);
  void tagVariant(llvm::Function *function) const;
  llvm::Type *builderInt32() const;
  uint64_t weightsOffset(const Value *constant);

  llvm::Module &module_;
  llvm::LLVMContext &context_;
  const llvm::Module &kernels_;
  const Graph &graph_;
  const TargetConfig &target_;

  llvm::GlobalVariable *arena_ = nullptr;
  llvm::GlobalVariable *weightsGlobal_ = nullptr;
  llvm::GlobalVariable *ioTable_ = nullptr;
  llvm::Function *runFunction_ = nullptr;
  llvm::Function *parallelFor_ = nullptr;
  llvm::Function *isaLevel_ = nullptr;
  const IsaVariant *variant_ = nullptr; // the variant being lowered
  bool recordCallNames_ = true;
  std::unique_ptr<llvm::IRBuilder<>> runBuilder_;

  WeightsLayout weights_;
  uint64_t arenaBytes_ = 0;
  size_t kernelCalls_ = 0;
  const Node *currentNode_ = nullptr;
  Status addressStatus_; // a value without storage met while computing addresses
  std::map<std::string, llvm::Function *> specialisations_;
  std::map<std::string, llvm::Constant *> paramBlocks_;
  std::vector<llvm::CallInst *> kernelCallSites_;
  std::vector<std::string> kernelCallNames_;
};

} // namespace cuvil
