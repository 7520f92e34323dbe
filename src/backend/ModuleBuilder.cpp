#include "ModuleBuilder.h"

#include "cuvil/lowering/Lowering.h"

#include <fmt/format.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <utility>

namespace cuvil {
namespace {

constexpr uint64_t kAlign = 64;

uint64_t alignTo(uint64_t value) { return (value + kAlign - 1) / kAlign * kAlign; }

// Text that identifies a kernel call's constant arguments, so calls with the
// same constants share one specialised function.
std::string specialisationKey(std::string_view kernel, const std::vector<KernelArg> &args) {
  std::string key(kernel);
  for (const KernelArg &arg : args) {
    switch (arg.kind()) {
    case KernelArg::Kind::Pointer:
      key += "|p";
      break;
    case KernelArg::Kind::Null:
      key += "|0";
      break;
    case KernelArg::Kind::I64:
      key += fmt::format("|i{}", arg.i64());
      break;
    case KernelArg::Kind::F32:
      key += fmt::format("|f{:a}", double(arg.f32()));
      break;
    case KernelArg::Kind::Block:
      key += fmt::format("|{}:{:02x}", arg.blockName(), fmt::join(arg.bytes(), ""));
      break;
    }
  }
  return key;
}

// The LLVM type a parameter of the kernel's prototype lowers to.
llvm::Type *llvmType(llvm::LLVMContext &context, const KernelParam &param) {
  switch (param.kind) {
  case KernelParam::Kind::I64:
    return llvm::Type::getInt64Ty(context);
  case KernelParam::Kind::F32:
    return llvm::Type::getFloatTy(context);
  case KernelParam::Kind::Buffer:
  case KernelParam::Kind::Block:
    break;
  }
  return llvm::PointerType::get(context, 0);
}

// The kernel library's definition must take what the prototype declares
// (both come from one header, so a mismatch means a stale library).
Status checkDefinition(const llvm::Function &definition, const KernelRef &kernel) {
  llvm::FunctionType *type = definition.getFunctionType();
  const std::vector<KernelParam> &params = kernel.params();
  bool matches = type->getNumParams() == params.size() + 2;
  for (size_t i = 0; matches && i < params.size(); ++i)
    matches = type->getParamType(unsigned(i)) == llvmType(definition.getContext(), params[i]);
  if (!matches)
    return Status::error(fmt::format("internal error: the kernel library's {} does not take the "
                                     "parameters its declaration does",
                                     kernel.name()));
  return Status::success();
}

} // namespace

ModuleBuilder::ModuleBuilder(llvm::Module &module, const llvm::Module &kernels, const Graph &graph,
                             const TargetConfig &target)
    : module_(module), context_(module.getContext()), kernels_(kernels), graph_(graph),
      target_(target) {}

uint64_t ModuleBuilder::weightsOffset(const Value *constant) {
  auto [it, inserted] = weights_.offsets.emplace(constant, weights_.totalBytes);
  if (inserted) {
    const Tensor &tensor = constant->constant();
    weights_.pieces.push_back({it->second, std::span(tensor.bytes(), tensor.byteSize())});
    weights_.totalBytes = alignTo(weights_.totalBytes + std::max<size_t>(tensor.byteSize(), 1));
  }
  return it->second;
}

bool ModuleBuilder::storedAt(const Value *part, const Value *whole, uint64_t byteOffset) const {
  const Storage &p = part->storage(), &w = whole->storage();
  return !part->isConstant() && !whole->isConstant() && p.space != StorageSpace::None &&
         p.space == w.space && p.index == w.index && p.offset == w.offset + byteOffset;
}

llvm::Value *ModuleBuilder::address(llvm::IRBuilder<> &builder, const KernelArg &arg) {
  llvm::Type *i8 = builder.getInt8Ty();
  const Value *value = arg.value();
  if (value->isConstant())
    return builder.CreateConstInBoundsGEP1_64(i8, weightsGlobal_,
                                              weightsOffset(value) + uint64_t(arg.byteOffset()));
  const Storage &storage = value->storage();
  uint64_t offset = storage.offset + uint64_t(arg.byteOffset());
  switch (storage.space) {
  case StorageSpace::Arena:
    return builder.CreateConstInBoundsGEP1_64(i8, arena_, offset);
  case StorageSpace::Input:
  case StorageSpace::Output: {
    uint64_t slot =
        storage.index + (storage.space == StorageSpace::Output ? graph_.inputs().size() : 0);
    llvm::Value *slotAddress =
        builder.CreateConstInBoundsGEP2_64(ioTable_->getValueType(), ioTable_, 0, slot);
    llvm::Value *base = builder.CreateLoad(builder.getPtrTy(), slotAddress);
    return builder.CreateConstInBoundsGEP1_64(i8, base, offset);
  }
  case StorageSpace::None:
    break;
  }
  addressStatus_ = Status::error(fmt::format("value %{} has no storage", value->name()));
  return llvm::ConstantPointerNull::get(builder.getPtrTy());
}

// A parameter block: a private constant global of its bytes, which the
// kernel's loads fold away once it is inlined into the specialisation.
llvm::Constant *ModuleBuilder::paramBlock(const KernelArg &arg) {
  llvm::Constant *&global = paramBlocks_[specialisationKey("", {arg})];
  if (global)
    return global;
  llvm::Constant *init = llvm::ConstantDataArray::get(context_, llvm::ArrayRef(arg.bytes()));
  auto *variable = new llvm::GlobalVariable(module_, init->getType(), /*isConstant=*/true,
                                            llvm::GlobalValue::PrivateLinkage, init, "params");
  variable->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  variable->setAlignment(llvm::Align(16));
  global = variable;
  return global;
}

llvm::Function *ModuleBuilder::specialise(llvm::Function *kernel,
                                          const std::vector<KernelArg> &args) {
  std::string key = variant_->name + ":" + specialisationKey(kernel->getName().str(), args);
  llvm::Function *&spec = specialisations_[key];
  if (spec)
    return spec;
  llvm::Type *ptr = llvm::PointerType::get(context_, 0);
  llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
  std::vector<llvm::Type *> params;
  for (const KernelArg &arg : args)
    if (arg.kind() == KernelArg::Kind::Pointer)
      params.push_back(ptr);
  params.push_back(i64);
  params.push_back(i64);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context_), params, false);
  spec = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                kernel->getName() + "." + variant_->name + ".spec", module_);
  spec->addFnAttr(llvm::Attribute::NoInline);
  tagVariant(spec);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context_, "entry", spec));
  std::vector<llvm::Value *> callArgs;
  unsigned nextParam = 0;
  for (const KernelArg &arg : args) {
    switch (arg.kind()) {
    case KernelArg::Kind::Pointer:
      callArgs.push_back(spec->getArg(nextParam++));
      break;
    case KernelArg::Kind::Null:
      callArgs.push_back(llvm::ConstantPointerNull::get(builder.getPtrTy()));
      break;
    case KernelArg::Kind::I64:
      callArgs.push_back(builder.getInt64(uint64_t(arg.i64())));
      break;
    case KernelArg::Kind::F32:
      callArgs.push_back(llvm::ConstantFP::get(builder.getFloatTy(), arg.f32()));
      break;
    case KernelArg::Kind::Block:
      callArgs.push_back(paramBlock(arg));
      break;
    }
  }
  callArgs.push_back(spec->getArg(nextParam));
  callArgs.push_back(spec->getArg(nextParam + 1));
  kernelCallSites_.push_back(builder.CreateCall(kernel, callArgs));
  builder.CreateRetVoid();
  return spec;
}

Status ModuleBuilder::emitKernelCall(const KernelRef &kernelRef, std::vector<KernelArg> args,
                                     int64_t numTasks) {
  if (numTasks <= 0)
    return Status::success();
  llvm::StringRef kernelName(kernelRef.name());
  const llvm::Function *libraryKernel = kernels_.getFunction(kernelName);
  if (!libraryKernel)
    return Status::error(
        fmt::format("internal error: the kernel library has no {}", kernelRef.name()));
  CUVIL_TRY(checkDefinition(*libraryKernel, kernelRef));
  llvm::FunctionType *kernelType = libraryKernel->getFunctionType();
  llvm::Function *kernel = llvm::cast<llvm::Function>(
      module_.getOrInsertFunction(llvm::StringRef(kernelName), kernelType).getCallee());
  llvm::Function *spec = specialise(kernel, args);

  // task.N(begin, end) = spec(addresses..., begin, end)
  llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
  auto *taskType = llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {i64, i64}, false);
  llvm::Function *task =
      llvm::Function::Create(taskType, llvm::GlobalValue::InternalLinkage,
                             fmt::format("task.{}.{}", variant_->name, kernelCalls_), module_);
  tagVariant(task);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context_, "entry", task));
  std::vector<llvm::Value *> specArgs;
  for (const KernelArg &arg : args)
    if (arg.kind() == KernelArg::Kind::Pointer)
      specArgs.push_back(address(builder, arg));
  specArgs.push_back(task->getArg(0));
  specArgs.push_back(task->getArg(1));
  builder.CreateCall(spec, specArgs);
  builder.CreateRetVoid();

  runBuilder_->CreateCall(parallelFor_, {task, runBuilder_->getInt64(uint64_t(numTasks))});
  if (recordCallNames_) {
    kernelCallNames_.push_back(fmt::format("{} {}", currentNode_->describe(), kernelRef.name()));
    ++kernelCalls_;
  }
  return std::exchange(addressStatus_, Status::success());
}

Status ModuleBuilder::build() {
  llvm::Type *i8 = llvm::Type::getInt8Ty(context_);
  llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
  llvm::Type *ptr = llvm::PointerType::get(context_, 0);
  llvm::Type *voidTy = llvm::Type::getVoidTy(context_);

  for (const auto &node : graph_.nodes())
    for (const Value *result : node->outputs())
      if (result->storage().space == StorageSpace::Arena)
        arenaBytes_ = std::max(arenaBytes_, result->storage().offset + result->type().byteSize());
  arenaBytes_ = alignTo(arenaBytes_);

  auto *arenaType = llvm::ArrayType::get(i8, std::max<uint64_t>(arenaBytes_, 1));
  arena_ = new llvm::GlobalVariable(module_, arenaType, false, llvm::GlobalValue::InternalLinkage,
                                    llvm::ConstantAggregateZero::get(arenaType), "cuvil_arena");
  arena_->setAlignment(llvm::Align(kAlign));
  weightsGlobal_ =
      new llvm::GlobalVariable(module_, llvm::ArrayType::get(i8, 0), true,
                               llvm::GlobalValue::ExternalLinkage, nullptr, "cuvil_weights");
  weightsGlobal_->setAlignment(llvm::Align(kAlign));
  size_t ioSlots = graph_.inputs().size() + graph_.outputs().size();
  auto *ioType = llvm::ArrayType::get(ptr, std::max<size_t>(ioSlots, 1));
  ioTable_ = new llvm::GlobalVariable(module_, ioType, false, llvm::GlobalValue::InternalLinkage,
                                      llvm::ConstantAggregateZero::get(ioType), "cuvil_io");

  parallelFor_ =
      llvm::Function::Create(llvm::FunctionType::get(voidTy, {ptr, i64}, false),
                             llvm::GlobalValue::ExternalLinkage, "cuvil_parallel_for", module_);

  // One run function per ISA variant, each with its own specialisations
  // and tasks, all sharing the arena, weights and I/O table.
  isaLevel_ =
      llvm::Function::Create(llvm::FunctionType::get(builderInt32(), {}, false),
                             llvm::GlobalValue::ExternalLinkage, "cuvil_isa_level", module_);
  std::vector<llvm::Function *> variantRuns;
  for (const IsaVariant &variant : target_.variants) {
    variant_ = &variant;
    runFunction_ = llvm::Function::Create(llvm::FunctionType::get(voidTy, {ptr, ptr}, false),
                                          llvm::GlobalValue::InternalLinkage,
                                          "cuvil_run." + variant.name, module_);
    tagVariant(runFunction_);
    runBuilder_ = std::make_unique<llvm::IRBuilder<>>(
        llvm::BasicBlock::Create(context_, "entry", runFunction_));
    // Publish the caller's buffers in the I/O table the tasks read from.
    for (size_t i = 0; i < ioSlots; ++i) {
      bool isInput = i < graph_.inputs().size();
      llvm::Value *array = runFunction_->getArg(isInput ? 0 : 1);
      size_t index = isInput ? i : i - graph_.inputs().size();
      llvm::Value *source = runBuilder_->CreateConstInBoundsGEP1_64(ptr, array, index);
      llvm::Value *buffer = runBuilder_->CreateLoad(ptr, source);
      runBuilder_->CreateStore(buffer,
                               runBuilder_->CreateConstInBoundsGEP2_64(ioType, ioTable_, 0, i));
    }
    for (const auto &node : graph_.nodes()) {
      currentNode_ = node.get();
      CUVIL_TRY(lowerNode(*node, *this));
    }
    runBuilder_->CreateRetVoid();
    variantRuns.push_back(runFunction_);
    recordCallNames_ = false; // every variant makes the same calls
  }
  emitDispatcher(variantRuns);
  return Status::success();
}

// cuvil_run(in, out): the best variant the CPU supports (variants are
// ordered best first; the runtime refuses CPUs below the last one).
void ModuleBuilder::emitDispatcher(const std::vector<llvm::Function *> &variantRuns) {
  llvm::Type *ptr = llvm::PointerType::get(context_, 0);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {ptr, ptr}, false);
  llvm::Function *run =
      llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "cuvil_run", module_);
  run->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context_, "entry", run));
  llvm::Value *level = builder.CreateCall(isaLevel_);
  for (size_t i = 0; i < variantRuns.size(); ++i) {
    llvm::BasicBlock *call = llvm::BasicBlock::Create(context_, "call", run);
    llvm::BasicBlock *next = llvm::BasicBlock::Create(context_, "next", run);
    bool last = i + 1 == variantRuns.size();
    builder.CreateCondBr(
        last ? builder.getTrue()
             : builder.CreateICmpSGE(level, builder.getInt32(uint32_t(target_.variants[i].level))),
        call, next);
    builder.SetInsertPoint(call);
    builder.CreateCall(variantRuns[i], {run->getArg(0), run->getArg(1)});
    builder.CreateRetVoid();
    builder.SetInsertPoint(next);
  }
  builder.CreateUnreachable();
}

void ModuleBuilder::tagVariant(llvm::Function *function) const {
  function->addFnAttr(kVariantAttribute, variant_->name);
  function->addFnAttr(llvm::Attribute::NoUnwind);
}

llvm::Type *ModuleBuilder::builderInt32() const { return llvm::Type::getInt32Ty(context_); }

} // namespace cuvil
