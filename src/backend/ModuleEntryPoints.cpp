// The module's entry points, which ModuleBuilder::build emits once every
// path is lowered: `cuvil_run` choosing a path and variant and reporting
// the run's data checks, and `cuvil_output_dims`; and the check after each
// kernel call that can refuse its data.
#include "ModuleBuilder.h"

#include "cuvil/runtime/ModelABI.h"

#include <fmt/format.h>
#include <llvm/IR/MDBuilder.h>

namespace cuvil {

// After a call that can refuse its data: when the kernel raised the error
// cell with check c (from 1), the run stops with error code first + c, the
// checks' messages being numbered from first + 1 (cuvil_run's result).
void ModuleBuilder::emitErrorCheck(const std::vector<std::string> &checks) {
  std::vector<std::string> messages;
  for (const std::string &check : checks)
    messages.push_back(fmt::format("{}: {}", currentNode_->describe(), check));
  std::string key = fmt::format("{}", fmt::join(messages, "\n"));
  auto [it, added] = errorIndex_.emplace(key, errorMessages_.size());
  if (added)
    errorMessages_.insert(errorMessages_.end(), messages.begin(), messages.end());
  llvm::Type *i64 = runBuilder_->getInt64Ty();
  llvm::Function *run = runBuilder_->GetInsertBlock()->getParent();
  llvm::BasicBlock *fail = llvm::BasicBlock::Create(context_, "refuse", run);
  llvm::BasicBlock *next = llvm::BasicBlock::Create(context_, "checked", run);
  llvm::Value *raised = runBuilder_->CreateLoad(i64, frameField(*runBuilder_, kErrorCellOffset));
  runBuilder_->CreateCondBr(runBuilder_->CreateICmpNE(raised, runBuilder_->getInt64(0)), fail, next,
                            llvm::MDBuilder(context_).createUnlikelyBranchWeights());
  runBuilder_->SetInsertPoint(fail);
  llvm::Value *code =
      runBuilder_->CreateAdd(runBuilder_->CreateTrunc(raised, runBuilder_->getInt32Ty()),
                             runBuilder_->getInt32(uint32_t(it->second)));
  runBuilder_->CreateStore(code, frameField(*runBuilder_, kErrorCodeOffset));
  runBuilder_->CreateRetVoid();
  runBuilder_->SetInsertPoint(next);
}

// cuvil_run(frame, in, out, symbols, error_value): publishes the buffers and
// symbol values in the frame, then runs the first path whose symbol values the inputs have (the
// generic path, last, takes any), in the best variant the CPU supports
// (variants are ordered best first; the runtime refuses CPUs below the
// last one). The symbols the run computes from data go back to the caller,
// and so does the outcome of the run's checks of its data.
void ModuleBuilder::emitDispatcher(const std::vector<std::vector<llvm::Function *>> &runs) {
  llvm::Type *ptr = llvm::PointerType::get(context_, 0);
  llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
  llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
  auto *type = llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr, ptr}, false);
  llvm::Function *run =
      llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "cuvil_run", module_);
  run->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context_, "entry", run));
  llvm::Value *frame = run->getArg(0);
  builder.CreateStore(builder.getInt64(0), frameField(builder, kErrorCellOffset));
  builder.CreateStore(builder.getInt32(0), frameField(builder, kErrorCodeOffset));
  // The run's number, from which random kernels draw (cuvil_random_state).
  llvm::Value *runCount = frameField(builder, offsetof(cuvil_frame_header, runs));
  builder.CreateStore(builder.CreateAdd(builder.CreateLoad(i64, runCount), builder.getInt64(1)),
                      runCount);
  size_t numInputs = model_.inputs().size();
  for (size_t i = 0; i < numInputs + model_.outputs().size(); ++i) {
    bool isInput = i < numInputs;
    llvm::Value *source = builder.CreateConstInBoundsGEP1_64(ptr, run->getArg(isInput ? 1 : 2),
                                                             isInput ? i : i - numInputs);
    builder.CreateStore(builder.CreateLoad(ptr, source), ioSlot(builder, i));
  }
  llvm::Value *frameSymbols = symbolsBase(builder);
  size_t numSymbols = model_.symbols().size(); // the caller's: the model's own
  auto symbolAt = [&](llvm::Value *base, size_t slot) {
    return builder.CreateConstInBoundsGEP1_64(i64, base, slot);
  };
  for (size_t s = 0; s < numSymbols; ++s)
    builder.CreateStore(builder.CreateLoad(i64, symbolAt(run->getArg(3), s)),
                        symbolAt(frameSymbols, s));
  llvm::BasicBlock *done = llvm::BasicBlock::Create(context_, "done", run);
  llvm::Value *level = builder.CreateCall(isaLevel_);
  for (size_t p = 0; p < runs.size(); ++p) {
    // This path when every symbol it fixes has its value.
    llvm::Value *matches = builder.getTrue();
    const std::vector<int64_t> &values = pathList_[p].symbolValues;
    for (size_t s = 0; s < values.size(); ++s)
      matches = builder.CreateAnd(
          matches, builder.CreateICmpEQ(builder.CreateLoad(i64, symbolAt(frameSymbols, s)),
                                        builder.getInt64(uint64_t(values[s]))));
    llvm::BasicBlock *path = llvm::BasicBlock::Create(context_, "path", run);
    llvm::BasicBlock *nextPath = llvm::BasicBlock::Create(context_, "next_path", run);
    builder.CreateCondBr(matches, path, nextPath);
    builder.SetInsertPoint(path);
    for (size_t v = 0; v < runs[p].size(); ++v) {
      llvm::BasicBlock *call = llvm::BasicBlock::Create(context_, "call", run);
      llvm::BasicBlock *nextVariant = llvm::BasicBlock::Create(context_, "next_variant", run);
      bool last = v + 1 == runs[p].size();
      builder.CreateCondBr(last ? builder.getTrue()
                                : builder.CreateICmpSGE(
                                      level, builder.getInt32(uint32_t(target_.variants[v].level))),
                           call, nextVariant);
      builder.SetInsertPoint(call);
      builder.CreateCall(runs[p][v], {frame});
      builder.CreateBr(done);
      builder.SetInsertPoint(nextVariant);
    }
    builder.CreateUnreachable(); // after the last variant, taken unconditionally
    builder.SetInsertPoint(nextPath);
  }
  builder.CreateUnreachable();
  builder.SetInsertPoint(done);
  for (size_t s = 0; s < numSymbols; ++s)
    builder.CreateStore(builder.CreateLoad(i64, symbolAt(frameSymbols, s)),
                        symbolAt(run->getArg(3), s));
  builder.CreateStore(builder.CreateLoad(i64, frameField(builder, kErrorCellOffset + 8)),
                      run->getArg(4));
  builder.CreateRet(builder.CreateLoad(i32, frameField(builder, kErrorCodeOffset)));
}

// cuvil_output_dims(symbols, dims): each output's dims for these symbol
// values, the outputs one after another.
void ModuleBuilder::emitOutputDims() {
  llvm::Type *ptr = llvm::PointerType::get(context_, 0);
  llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {ptr, ptr}, false);
  outputDims_ = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                       "cuvil_output_dims", module_);
  outputDims_->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context_, "entry", outputDims_));
  size_t next = 0;
  for (const Value *output : model_.outputs())
    for (const Dim &dim : output->type().shape)
      builder.CreateStore(emitDim(builder, dim, outputDims_->getArg(0)),
                          builder.CreateConstInBoundsGEP1_64(i64, outputDims_->getArg(1), next++));
  builder.CreateRetVoid();
}

} // namespace cuvil
