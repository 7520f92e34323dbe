// Builds the LLVM module of planned graphs: the weights global, the layout
// of the frame (a run's mutable state: arena pointer, I/O table, symbol
// values, error cell), one task function per kernel call, specialised
// kernels, a run function per code path and ISA variant, and `cuvil_run`
// choosing among them. The module has no mutable globals: every run and
// task function takes the frame as its first parameter, so instances with
// their own frames run concurrently.
#pragma once

#include "cuvil/backend/Backend.h"
#include "cuvil/backend/Target.h"
#include "cuvil/backend/WeightsObject.h"
#include "cuvil/ir/Graph.h"
#include "cuvil/lowering/Lowering.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace cuvil {

// Where each constant lives in the weights blob. Constants with the same
// bytes (a weight in the static and the generic path) share one piece.
struct WeightsLayout {
  std::unordered_map<const Value *, uint64_t> offsets;
  std::multimap<uint64_t, uint64_t> offsetsByHash; // content hash -> offset
  std::vector<WeightsPiece> pieces;                // in offset order
  uint64_t totalBytes = 0;
};

// What the builder made of one code path.
struct PathBuild {
  std::string name;
  uint64_t arenaBytes = 0;
  // "<op> '<node>' <kernel>" for each kernel call, in call order.
  std::vector<std::string> kernelCallNames;
};

class ModuleBuilder final : public LoweringContext {
public:
  // `model` is the generic graph: its inputs, outputs and symbols are the
  // executable's; `paths` lists every graph to lower, `model` among them.
  // The weights are the loaded global `weights.symbol`, or where the frame
  // says when they are mapped (`weights.mappedSection`).
  ModuleBuilder(llvm::Module &module, const llvm::Module &kernels, const Graph &model,
                const std::vector<CodePath> &paths, const TargetConfig &target,
                const WeightsPlacement &weights);

  // Lowers every node into calls from the run functions; errors name the
  // node.
  Status build();

  const WeightsLayout &weights() const { return weights_; }
  // Whether a kernel call draws random numbers (cuvil_model_info.draws_random).
  bool drawsRandom() const { return drawsRandom_; }
  // The loaded weights' symbol, null when they are mapped.
  llvm::GlobalVariable *weightsGlobal() const { return weightsGlobal_; }
  // The arena every path shares: the largest path's.
  uint64_t arenaBytes() const;
  // The frame the runtime allocates per instance (cuvil_model_info.frame_bytes).
  uint64_t frameBytes() const { return frameBytes_; }
  const std::vector<PathBuild> &paths() const { return pathBuilds_; }
  size_t specialisations() const { return specialisations_.size(); }
  // Calls of specialised kernels, to be inlined once the kernels are linked.
  const std::vector<llvm::CallInst *> &kernelCallSites() const { return kernelCallSites_; }
  // The specialisations that take values known only at run time.
  const std::set<const llvm::Function *> &runTimeSpecialisations() const {
    return runTimeSpecialisations_;
  }
  // The messages of the run's checks of its data, in error-code order.
  const std::vector<std::string> &errorMessages() const { return errorMessages_; }
  // cuvil_output_dims(symbols, dims): every output's dims, in order.
  llvm::Function *outputDimsFunction() const { return outputDims_; }

  // LoweringContext
  bool storedAt(const Value *part, const Value *whole, uint64_t byteOffset) const override;
  const CpuModel &cpu() const override { return variant_->cpuModel; }
  Status storeDims(const Value *destination, std::span<const Dim> values) override;
  Status assignSymbol(SymbolId symbol, const Dim &value) override;
  Status lowerRegion(const Graph &region) override;
  Status emitIf(const Value *condition, const std::function<Status()> &thenPart,
                const std::function<Status()> &elsePart) override;
  Status emitLoop(SymbolId counter, const Dim &trips, const Value *condition,
                  const std::function<Status()> &body, std::optional<SymbolId> count) override;

  // Functions of one ISA variant carry its name in this attribute until
  // applyTargetAttributes gives them the variant's CPU and features.
  static constexpr const char *kVariantAttribute = "cuvil-isa";

protected:
  Status emitKernelCall(const KernelRef &kernel, std::vector<KernelArg> args, const Dim &numTasks,
                        const Dim &flops) override;

private:
  llvm::Function *specialise(llvm::Function *kernel, const std::vector<KernelArg> &args);
  llvm::Value *address(llvm::IRBuilder<> &builder, const Value *value, const Dim &byteOffset);
  llvm::Constant *paramBlock(const KernelArg &arg);
  // The value of `dim` for the symbol values at `symbols` (an i64 array
  // indexed by the model's symbol order; default: the frame's).
  llvm::Value *emitDim(llvm::IRBuilder<> &builder, const Dim &dim, llvm::Value *symbols = nullptr);
  llvm::Value *emitAtom(llvm::IRBuilder<> &builder, const Dim::Atom &atom, llvm::Value *symbols);
  // emitAtom's work, once per atom while the atom's value stands.
  llvm::Value *computeAtom(llvm::IRBuilder<> &builder, const Dim::Atom &atom, llvm::Value *symbols);
  // Forgets the atoms computed so far: a symbol is about to change.
  void forgetAtoms() { atoms_.clear(); }
  // The frame's parts, addressed from the frame parameter of the function
  // `builder` is in.
  llvm::Value *frameField(llvm::IRBuilder<> &builder, uint64_t offset) const;
  llvm::Value *arenaBase(llvm::IRBuilder<> &builder) const;
  llvm::Value *weightsBase(llvm::IRBuilder<> &builder) const;
  llvm::Value *ioSlot(llvm::IRBuilder<> &builder, size_t slot) const;
  llvm::Value *symbolsBase(llvm::IRBuilder<> &builder) const;
  // The address of the symbol's value in `symbols` (default: the frame's).
  llvm::Value *symbolSlot(llvm::IRBuilder<> &builder, SymbolId symbol,
                          llvm::Value *symbols = nullptr);
  void emitOutputDims();
  void emitErrorCheck(const std::vector<std::string> &checks);
  void emitDispatcher(const std::vector<std::vector<llvm::Function *>> &runs);
  void tagVariant(llvm::Function *function) const;
  uint64_t weightsOffset(const Value *constant);
  // The node operand a region's captured input (Storage::Capture) reads.
  const Value *capturedOperand(const Value *value);
  // Slots for every symbol of `graph` and of the regions in it.
  void assignSymbolSlots(const Graph &graph, std::map<std::string, size_t> &slotByName);

  llvm::Module &module_;
  llvm::LLVMContext &context_;
  const llvm::Module &kernels_;
  const Graph &model_;
  const std::vector<CodePath> &pathList_;
  const TargetConfig &target_;
  std::map<SymbolId, size_t> symbolSlots_; // the symbol's slot in cuvil_symbols
  // The atoms of dims computed in a block (from a symbol array) since a
  // symbol last changed, by atomKey, for reuse there: the offsets of a
  // Concat of n pieces sized from data sum up to n extents each, and
  // reloading each would make the code quadratic in n.
  std::map<std::pair<const llvm::BasicBlock *, const llvm::Value *>,
           std::map<std::string, llvm::Value *>>
      atoms_;
  size_t numSlots_ = 0;

  llvm::GlobalVariable *weightsGlobal_ = nullptr;
  bool drawsRandom_ = false;
  // The frame after its cuvil_frame_header: the error cell (int64_t[2]:
  // raised, value), the error code (i32: 1 + the failed check), the I/O
  // table (inputs then outputs) and the symbol slots.
  static constexpr uint64_t kErrorCellOffset = 48, kErrorCodeOffset = 64, kIoOffset = 72;
  uint64_t symbolsOffset_ = 0;
  uint64_t frameBytes_ = 0;
  llvm::Function *parallelFor_ = nullptr;
  llvm::Function *isaLevel_ = nullptr;
  llvm::Function *outputDims_ = nullptr;
  const IsaVariant *variant_ = nullptr; // the variant being lowered
  PathBuild *path_ = nullptr;           // the path being lowered
  bool recordCallNames_ = true;
  int64_t calls_ = 0; // the kernel calls of the run function being built
  std::unique_ptr<llvm::IRBuilder<>> runBuilder_;

  WeightsLayout weights_;
  std::vector<PathBuild> pathBuilds_;
  size_t tasks_ = 0;
  const Node *currentNode_ = nullptr;
  std::vector<const Graph *> regions_; // the regions being lowered, innermost last
  Status addressStatus_;               // a value without storage met while computing addresses
  std::map<std::string, llvm::Function *> specialisations_;
  std::map<std::string, llvm::Constant *> paramBlocks_;
  std::vector<llvm::CallInst *> kernelCallSites_;
  std::vector<std::string> errorMessages_;
  std::map<std::string, size_t> errorIndex_;
  std::set<const llvm::Function *> runTimeSpecialisations_;
};

} // namespace cuvil
