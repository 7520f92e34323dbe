#include "ModuleBuilder.h"

#include "WorkEstimate.h"

#include "cuvil/lowering/Lowering.h"
#include "cuvil/runtime/ModelABI.h"

#include <algorithm>
#include <cstddef>
#include <fmt/format.h>
#include <functional>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <string_view>
#include <utility>

namespace cuvil {
namespace {

constexpr uint64_t kAlign = 64;

uint64_t alignTo(uint64_t value) { return (value + kAlign - 1) / kAlign * kAlign; }

bool isRunTime(const KernelArg &arg) {
  return (arg.kind() == KernelArg::Kind::I64 && !arg.i64().isConstant()) ||
         (arg.kind() == KernelArg::Kind::Block && !arg.blockDims().empty());
}

// Text that identifies a kernel call's constant arguments, so calls with the
// same constants share one specialised function. Values known only at run
// time are parameters of the specialisation: the key marks where they go.
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
      key += arg.i64().isConstant() ? fmt::format("|i{}", arg.i64().constant()) : "|i?";
      break;
    case KernelArg::Kind::F32:
      key += fmt::format("|f{:a}", double(arg.f32()));
      break;
    case KernelArg::Kind::Block:
      key += fmt::format("|{}:{:02x}", arg.blockName(), fmt::join(arg.bytes(), ""));
      for (const auto &[offset, dim] : arg.blockDims())
        key += fmt::format("@{}", offset);
      break;
    case KernelArg::Kind::Table:
      key += fmt::format("|t{}:{:02x}", arg.tableElementBytes(), fmt::join(arg.bytes(), ""));
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
  case KernelParam::Kind::RandomState:
  case KernelParam::Kind::StringServices:
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

uint64_t contentHash(std::span<const uint8_t> bytes) {
  uint64_t hash = 1469598103934665603ull; // FNV-1a
  for (uint8_t byte : bytes)
    hash = (hash ^ byte) * 1099511628211ull;
  return hash ^ bytes.size();
}

} // namespace

ModuleBuilder::ModuleBuilder(llvm::Module &module, const llvm::Module &kernels, const Graph &model,
                             const std::vector<CodePath> &paths, const TargetConfig &target,
                             const WeightsPlacement &weights)
    : module_(module), context_(module.getContext()), kernels_(kernels), model_(model),
      pathList_(paths), target_(target) {
  // Loaded weights are a link-time address, which the kernels fold into
  // their addressing (the register allocator counts on it: a tile that was
  // spill-free with it spilled when the address came from the frame).
  if (weights.mappedSection.empty()) {
    weightsGlobal_ =
        new llvm::GlobalVariable(module_, llvm::ArrayType::get(llvm::Type::getInt8Ty(context_), 0),
                                 true, llvm::GlobalValue::ExternalLinkage, nullptr, weights.symbol);
    weightsGlobal_->setAlignment(llvm::Align(kAlign));
  }
  // A slot per symbol name: a static path's symbols computed from data are
  // its own ids for the generic graph's symbols of the same name.
  std::map<std::string, size_t> slotByName;
  assignSymbolSlots(model, slotByName);
  for (const CodePath &path : paths)
    assignSymbolSlots(*path.graph, slotByName);
  numSlots_ = slotByName.size();
}

void ModuleBuilder::assignSymbolSlots(const Graph &graph,
                                      std::map<std::string, size_t> &slotByName) {
  for (SymbolId symbol : graph.symbols()) {
    auto [slot, added] =
        slotByName.emplace(SymbolTable::global().info(symbol).name, slotByName.size());
    symbolSlots_.emplace(symbol, slot->second);
  }
  for (const auto &node : graph.nodes())
    for (size_t r = 0; r < node->numRegions(); ++r)
      assignSymbolSlots(node->region(r), slotByName);
}

const Value *ModuleBuilder::capturedOperand(const Value *value) {
  for (auto region = regions_.rbegin(); region != regions_.rend(); ++region) {
    if ((*region)->findValue(value->name()) != value)
      continue;
    const Node &owner = *(*region)->owner();
    size_t captures = owner.numCaptures(), inputs = (*region)->inputs().size();
    size_t index = value->storage().index;
    if (index + captures < inputs || index >= inputs)
      break;
    return owner.input(owner.numInputs() - captures + (index - (inputs - captures)));
  }
  addressStatus_ = Status::error(
      fmt::format("internal error: %{} reads a capture of no region being lowered", value->name()));
  return nullptr;
}

uint64_t ModuleBuilder::weightsOffset(const Value *constant) {
  auto known = weights_.offsets.find(constant);
  if (known != weights_.offsets.end())
    return known->second;
  const Tensor &tensor = constant->constant();
  std::span<const uint8_t> bytes(tensor.bytes(), tensor.byteSize());
  uint64_t hash = contentHash(bytes);
  auto [first, last] = weights_.offsetsByHash.equal_range(hash);
  for (auto it = first; it != last; ++it)
    for (const WeightsPiece &piece : weights_.pieces)
      if (piece.offset == it->second && piece.bytes.size() == bytes.size() &&
          std::equal(bytes.begin(), bytes.end(), piece.bytes.begin()))
        return weights_.offsets[constant] = piece.offset;
  uint64_t offset = weights_.totalBytes;
  weights_.offsets[constant] = offset;
  weights_.offsetsByHash.emplace(hash, offset);
  weights_.pieces.push_back({offset, bytes});
  weights_.totalBytes = alignTo(weights_.totalBytes + std::max<size_t>(bytes.size(), 1));
  return offset;
}

uint64_t ModuleBuilder::arenaBytes() const {
  uint64_t bytes = 0;
  for (const PathBuild &path : pathBuilds_)
    bytes = std::max(bytes, path.arenaBytes);
  return bytes;
}

bool ModuleBuilder::storedAt(const Value *part, const Value *whole, uint64_t byteOffset) const {
  const Storage &p = part->storage(), &w = whole->storage();
  return !part->isConstant() && !whole->isConstant() && p.space != StorageSpace::None &&
         p.space == w.space && p.index == w.index && p.offset == w.offset + byteOffset;
}

llvm::Value *ModuleBuilder::address(llvm::IRBuilder<> &builder, const Value *value,
                                    const Dim &byteOffset) {
  llvm::Type *i8 = builder.getInt8Ty();
  llvm::Value *base = nullptr;
  uint64_t offset = 0;
  if (value->isConstant()) {
    base = weightsBase(builder);
    offset = weightsOffset(value);
  } else {
    const Storage &storage = value->storage();
    offset = storage.offset;
    switch (storage.space) {
    case StorageSpace::Arena:
      base = arenaBase(builder);
      break;
    case StorageSpace::Input:
    case StorageSpace::Output: {
      uint64_t slot =
          storage.index + (storage.space == StorageSpace::Output ? model_.inputs().size() : 0);
      base = builder.CreateLoad(builder.getPtrTy(), ioSlot(builder, slot));
      break;
    }
    case StorageSpace::Capture: {
      const Value *operand = capturedOperand(value);
      if (!operand)
        return llvm::ConstantPointerNull::get(builder.getPtrTy());
      return address(builder, operand, byteOffset + int64_t(storage.offset));
    }
    case StorageSpace::None:
      addressStatus_ = Status::error(fmt::format("value %{} has no storage", value->name()));
      return llvm::ConstantPointerNull::get(builder.getPtrTy());
    }
  }
  Dim total = byteOffset + int64_t(offset);
  if (total.isConstant())
    return builder.CreateConstInBoundsGEP1_64(i8, base, uint64_t(total.constant()));
  return builder.CreateInBoundsGEP(i8, base, emitDim(builder, total));
}

llvm::Value *ModuleBuilder::frameField(llvm::IRBuilder<> &builder, uint64_t offset) const {
  llvm::Value *frame = builder.GetInsertBlock()->getParent()->getArg(0);
  return builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), frame, offset);
}

// cuvil_frame_header.arena and .weights: 64-byte aligned, which the
// kernels' vector accesses may rely on.
static llvm::Value *alignedFramePointer(llvm::IRBuilder<> &builder, llvm::Value *field,
                                        uint64_t align, const char *name) {
  llvm::LoadInst *pointer =
      builder.CreateAlignedLoad(builder.getPtrTy(), field, llvm::Align(8), name);
  llvm::LLVMContext &context = builder.getContext();
  llvm::Metadata *alignment = llvm::ConstantAsMetadata::get(builder.getInt64(align));
  pointer->setMetadata(llvm::LLVMContext::MD_align, llvm::MDNode::get(context, alignment));
  pointer->setMetadata(llvm::LLVMContext::MD_nonnull, llvm::MDNode::get(context, {}));
  return pointer;
}

llvm::Value *ModuleBuilder::arenaBase(llvm::IRBuilder<> &builder) const {
  return alignedFramePointer(builder, frameField(builder, offsetof(cuvil_frame_header, arena)),
                             kAlign, "arena");
}

llvm::Value *ModuleBuilder::weightsBase(llvm::IRBuilder<> &builder) const {
  if (weightsGlobal_)
    return weightsGlobal_;
  return alignedFramePointer(builder, frameField(builder, offsetof(cuvil_frame_header, weights)),
                             kAlign, "weights");
}

llvm::Value *ModuleBuilder::ioSlot(llvm::IRBuilder<> &builder, size_t slot) const {
  return frameField(builder, kIoOffset + 8 * slot);
}

llvm::Value *ModuleBuilder::symbolsBase(llvm::IRBuilder<> &builder) const {
  return frameField(builder, symbolsOffset_);
}

// A parameter block or table: a private constant global of its bytes, which
// the kernel's loads fold away once it is inlined into the specialisation.
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

// spec(pointers..., run-time values..., begin, end) = kernel(args...). A
// block with fields known only at run time is a copy of its constant bytes
// on the stack with those fields stored: once the kernel is inlined, its
// loads of the constant fields fold and the others read the parameters.
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
  for (const KernelArg &arg : args)
    if (isRunTime(arg))
      params.insert(params.end(), arg.kind() == KernelArg::Kind::I64 ? 1 : arg.blockDims().size(),
                    i64);
  params.push_back(i64);
  params.push_back(i64);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context_), params, false);
  spec = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                kernel->getName() + "." + variant_->name + ".spec", module_);
  spec->addFnAttr(llvm::Attribute::NoInline);
  tagVariant(spec);
  if (std::any_of(args.begin(), args.end(), isRunTime))
    runTimeSpecialisations_.insert(spec);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context_, "entry", spec));
  std::vector<llvm::Value *> callArgs;
  unsigned nextPointer = 0;
  unsigned nextValue = unsigned(std::count_if(args.begin(), args.end(), [](const KernelArg &arg) {
    return arg.kind() == KernelArg::Kind::Pointer;
  }));
  for (const KernelArg &arg : args) {
    switch (arg.kind()) {
    case KernelArg::Kind::Pointer:
      callArgs.push_back(spec->getArg(nextPointer++));
      break;
    case KernelArg::Kind::Null:
      callArgs.push_back(llvm::ConstantPointerNull::get(builder.getPtrTy()));
      break;
    case KernelArg::Kind::I64:
      callArgs.push_back(arg.i64().isConstant()
                             ? builder.getInt64(uint64_t(arg.i64().constant()))
                             : static_cast<llvm::Value *>(spec->getArg(nextValue++)));
      break;
    case KernelArg::Kind::F32:
      callArgs.push_back(llvm::ConstantFP::get(builder.getFloatTy(), arg.f32()));
      break;
    case KernelArg::Kind::Table:
      callArgs.push_back(paramBlock(arg));
      break;
    case KernelArg::Kind::Block: {
      llvm::Constant *constant = paramBlock(arg);
      if (arg.blockDims().empty()) {
        callArgs.push_back(constant);
        break;
      }
      llvm::Value *block =
          builder.CreateAlloca(builder.getInt8Ty(), builder.getInt64(arg.bytes().size()), "block");
      llvm::cast<llvm::AllocaInst>(block)->setAlignment(llvm::Align(16));
      builder.CreateMemCpy(block, llvm::MaybeAlign(16), constant, llvm::MaybeAlign(16),
                           arg.bytes().size());
      for (const auto &[offset, dim] : arg.blockDims())
        builder.CreateStore(spec->getArg(nextValue++),
                            builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), block, offset));
      callArgs.push_back(block);
      break;
    }
    }
  }
  callArgs.push_back(spec->getArg(nextValue));
  callArgs.push_back(spec->getArg(nextValue + 1));
  kernelCallSites_.push_back(builder.CreateCall(kernel, callArgs));
  builder.CreateRetVoid();
  return spec;
}

Status ModuleBuilder::emitKernelCall(const KernelRef &kernelRef, std::vector<KernelArg> args,
                                     const Dim &numTasks, const Dim &flops) {
  if (numTasks.max() <= 0)
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

  // task.N(frame, begin, end) = spec(addresses..., run-time values...,
  // begin, end), the values computed from the frame's symbols at each call.
  llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
  llvm::Type *ptr = llvm::PointerType::get(context_, 0);
  auto *taskType = llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {ptr, i64, i64}, false);
  llvm::Function *task =
      llvm::Function::Create(taskType, llvm::GlobalValue::InternalLinkage,
                             fmt::format("task.{}.{}", variant_->name, tasks_++), module_);
  tagVariant(task);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context_, "entry", task));
  std::vector<llvm::Value *> specArgs;
  for (const KernelArg &arg : args)
    if (arg.kind() == KernelArg::Kind::Pointer)
      specArgs.push_back(
          arg.symbol()          ? symbolSlot(builder, *arg.symbol())
          : arg.isErrorCell()   ? frameField(builder, kErrorCellOffset)
          : arg.isRandomState() ? frameField(builder, offsetof(cuvil_frame_header, random_seed))
          : arg.isStringServices()
              ? builder.CreateLoad(llvm::PointerType::get(context_, 0),
                                   frameField(builder, offsetof(cuvil_frame_header, strings)))
              : address(builder, arg.value(), arg.byteOffset()));
  drawsRandom_ |= std::any_of(args.begin(), args.end(),
                              [](const KernelArg &arg) { return arg.isRandomState(); });
  for (const KernelArg &arg : args) {
    if (!isRunTime(arg))
      continue;
    if (arg.kind() == KernelArg::Kind::I64)
      specArgs.push_back(emitDim(builder, arg.i64()));
    else
      for (const auto &[offset, dim] : arg.blockDims())
        specArgs.push_back(emitDim(builder, dim));
  }
  specArgs.push_back(task->getArg(1));
  specArgs.push_back(task->getArg(2));
  builder.CreateCall(spec, specArgs);
  builder.CreateRetVoid();

  llvm::Value *tasks = emitDim(*runBuilder_, numTasks);
  llvm::Value *workNs = emitDim(*runBuilder_, estimatedWorkNs(cpu(), args, flops));
  llvm::Value *frame = runBuilder_->GetInsertBlock()->getParent()->getArg(0);
  runBuilder_->CreateCall(parallelFor_,
                          {task, frame, tasks, workNs, runBuilder_->getInt64(calls_++)});
  if (std::any_of(args.begin(), args.end(), [](const KernelArg &arg) { return arg.symbol(); }))
    forgetAtoms(); // the kernel sets a symbol from data
  for (const KernelArg &arg : args)
    if (arg.isErrorCell())
      emitErrorCheck(arg.errorMessages());
  if (recordCallNames_)
    path_->kernelCallNames.push_back(
        fmt::format("{} {}", currentNode_->describe(), kernelRef.name()));
  return std::exchange(addressStatus_, Status::success());
}

Status ModuleBuilder::build() {
  llvm::Type *i64 = llvm::Type::getInt64Ty(context_);
  llvm::Type *ptr = llvm::PointerType::get(context_, 0);
  llvm::Type *voidTy = llvm::Type::getVoidTy(context_);

  // Every path's arena is planned for its largest shapes (maxByteSize).
  // Region values too: a region's plan lies in its node's scratch.
  std::function<uint64_t(const Graph &)> arenaEnd = [&](const Graph &graph) {
    uint64_t end = 0;
    auto extend = [&](const Value *value) {
      if (value->storage().space == StorageSpace::Arena)
        end = std::max(end, value->storage().offset + value->type().maxByteSize());
    };
    for (const Value *input : graph.inputs())
      extend(input);
    for (const auto &node : graph.nodes()) {
      for (const Value *result : node->outputs())
        extend(result);
      for (size_t r = 0; r < node->numRegions(); ++r)
        end = std::max(end, arenaEnd(node->region(r)));
    }
    return end;
  };
  for (const CodePath &path : pathList_) {
    PathBuild build;
    build.name = path.name;
    build.arenaBytes = alignTo(arenaEnd(*path.graph));
    pathBuilds_.push_back(std::move(build));
  }

  static_assert(sizeof(cuvil_frame_header) <= kErrorCellOffset);
  static_assert(offsetof(cuvil_frame_header, runs) - offsetof(cuvil_frame_header, random_seed) ==
                    offsetof(cuvil_random_state, runs) &&
                sizeof(cuvil_random_state) == 16);
  size_t ioSlots = model_.inputs().size() + model_.outputs().size();
  symbolsOffset_ = kIoOffset + 8 * ioSlots;
  frameBytes_ = alignTo(symbolsOffset_ + 8 * numSlots_);

  parallelFor_ =
      llvm::Function::Create(llvm::FunctionType::get(voidTy, {ptr, ptr, i64, i64, i64}, false),
                             llvm::GlobalValue::ExternalLinkage, "cuvil_parallel_for", module_);

  // One run function per path and ISA variant, each with its own
  // specialisations and tasks, all sharing the weights and reading the
  // frame cuvil_run is given (which it fills with the I/O table and symbol
  // values).
  isaLevel_ =
      llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getInt32Ty(context_), {}, false),
                             llvm::GlobalValue::ExternalLinkage, "cuvil_isa_level", module_);
  std::vector<std::vector<llvm::Function *>> runs(pathList_.size());
  for (size_t p = 0; p < pathList_.size(); ++p) {
    path_ = &pathBuilds_[p];
    recordCallNames_ = true;
    for (const IsaVariant &variant : target_.variants) {
      variant_ = &variant;
      llvm::Function *run = llvm::Function::Create(
          llvm::FunctionType::get(voidTy, {ptr}, false), llvm::GlobalValue::InternalLinkage,
          fmt::format("cuvil_run.{}.{}", path_->name, variant.name), module_);
      tagVariant(run);
      runBuilder_ =
          std::make_unique<llvm::IRBuilder<>>(llvm::BasicBlock::Create(context_, "entry", run));
      calls_ = 0;
      forgetAtoms(); // what it holds belongs to the previous function's blocks
      for (const auto &node : pathList_[p].graph->nodes()) {
        currentNode_ = node.get();
        CUVIL_TRY(lowerNode(*node, *this));
      }
      runBuilder_->CreateRetVoid();
      runs[p].push_back(run);
      recordCallNames_ = false; // every variant makes the same calls
    }
  }
  emitDispatcher(runs);
  emitOutputDims();
  return Status::success();
}

Status ModuleBuilder::lowerRegion(const Graph &region) {
  const Node *owner = currentNode_;
  regions_.push_back(&region);
  Status status;
  for (const auto &node : region.nodes()) {
    currentNode_ = node.get();
    status = lowerNode(*node, *this);
    if (!status.ok())
      break;
  }
  regions_.pop_back();
  currentNode_ = owner;
  return status;
}

Status ModuleBuilder::emitIf(const Value *condition, const std::function<Status()> &thenPart,
                             const std::function<Status()> &elsePart) {
  llvm::IRBuilder<> &builder = *runBuilder_;
  llvm::Function *run = builder.GetInsertBlock()->getParent();
  llvm::Value *flag = builder.CreateLoad(builder.getInt8Ty(), address(builder, condition, 0));
  CUVIL_TRY(std::exchange(addressStatus_, Status::success()));
  auto *thenBlock = llvm::BasicBlock::Create(context_, "then", run);
  auto *elseBlock = llvm::BasicBlock::Create(context_, "else", run);
  auto *merge = llvm::BasicBlock::Create(context_, "endif", run);
  builder.CreateCondBr(builder.CreateICmpNE(flag, builder.getInt8(0)), thenBlock, elseBlock);
  for (auto [block, part] : {std::pair{thenBlock, &thenPart}, std::pair{elseBlock, &elsePart}}) {
    builder.SetInsertPoint(block);
    CUVIL_TRY((*part)());
    builder.CreateBr(merge);
  }
  builder.SetInsertPoint(merge);
  return Status::success();
}

Status ModuleBuilder::emitLoop(SymbolId counter, const Dim &trips, const Value *condition,
                               const std::function<Status()> &body, std::optional<SymbolId> count) {
  llvm::IRBuilder<> &builder = *runBuilder_;
  llvm::Function *run = builder.GetInsertBlock()->getParent();
  llvm::Type *i64 = builder.getInt64Ty();
  llvm::Value *slot = symbolSlot(builder, counter);
  builder.CreateStore(builder.getInt64(0), slot);
  forgetAtoms();
  auto *header = llvm::BasicBlock::Create(context_, "loop", run);
  auto *bodyBlock = llvm::BasicBlock::Create(context_, "body", run);
  auto *exit = llvm::BasicBlock::Create(context_, "endloop", run);
  builder.CreateBr(header);
  builder.SetInsertPoint(header);
  llvm::Value *go = builder.CreateICmpSLT(builder.CreateLoad(i64, slot), emitDim(builder, trips));
  if (condition) {
    llvm::Value *flag = builder.CreateLoad(builder.getInt8Ty(), address(builder, condition, 0));
    go = builder.CreateAnd(go, builder.CreateICmpNE(flag, builder.getInt8(0)));
  }
  CUVIL_TRY(std::exchange(addressStatus_, Status::success()));
  builder.CreateCondBr(go, bodyBlock, exit);
  builder.SetInsertPoint(bodyBlock);
  CUVIL_TRY(body());
  builder.CreateStore(builder.CreateAdd(builder.CreateLoad(i64, slot), builder.getInt64(1)), slot);
  forgetAtoms();
  builder.CreateBr(header);
  builder.SetInsertPoint(exit);
  if (count)
    builder.CreateStore(builder.CreateLoad(i64, slot), symbolSlot(builder, *count));
  forgetAtoms();
  return std::exchange(addressStatus_, Status::success());
}

void ModuleBuilder::tagVariant(llvm::Function *function) const {
  function->addFnAttr(kVariantAttribute, variant_->name);
  function->addFnAttr(llvm::Attribute::NoUnwind);
}

} // namespace cuvil
