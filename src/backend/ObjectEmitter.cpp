#include "ObjectEmitter.h"

#include "ModuleBuilder.h"

#include <fmt/format.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <map>

namespace cuvil {

Expected<std::unique_ptr<llvm::TargetMachine>> createTargetMachine(const TargetConfig &target) {
  std::string error;
  const llvm::Target *llvmTarget = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (!llvmTarget)
    return Status::error(error);
  llvm::TargetOptions options;
  // Assembly output keeps the comments (loop nests, spills, reloads) that
  // tools/check_spills.py reads.
  options.MCOptions.AsmVerbose = true;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      target.triple, target.variants.back().cpu, target.variants.back().features, options,
      llvm::Reloc::PIC_, llvm::CodeModel::Small, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return Status::error(fmt::format("cannot create an LLVM target machine for {}", target.triple));
  return machine;
}

namespace {

// A function one variant's code calls must be compiled for that variant: a
// vector passed by value travels in registers of the function's own width
// (a <16 x float> in one zmm under AVX-512, in two ymm under AVX2), so a
// shared kernel helper the inliner left out-of-line, given the fallback's
// features, would read its arguments from the wrong registers. Every variant
// but the fallback gets its own copy of each untagged function it reaches.
void cloneCalleesPerVariant(llvm::Module &module, const TargetConfig &target) {
  const char *tagName = ModuleBuilder::kVariantAttribute;
  std::map<std::pair<llvm::Function *, std::string>, llvm::Function *> copies;
  std::vector<llvm::Function *> work;
  for (llvm::Function &function : module.functions())
    if (function.hasFnAttribute(tagName) &&
        function.getFnAttribute(tagName).getValueAsString() != target.variants.back().name)
      work.push_back(&function);
  while (!work.empty()) {
    llvm::Function *caller = work.back();
    work.pop_back();
    const std::string variant = caller->getFnAttribute(tagName).getValueAsString().str();
    for (llvm::Instruction &instruction : llvm::instructions(*caller)) {
      auto *call = llvm::dyn_cast<llvm::CallBase>(&instruction);
      llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
      if (!callee || callee->isDeclaration() || callee->hasFnAttribute(tagName))
        continue;
      llvm::Function *&copy = copies[{callee, variant}];
      if (!copy) {
        llvm::ValueToValueMapTy map;
        copy = llvm::CloneFunction(callee, map);
        copy->setName(callee->getName() + "." + variant);
        copy->setLinkage(llvm::GlobalValue::InternalLinkage);
        copy->addFnAttr(tagName, variant);
        work.push_back(copy);
      }
      call->setCalledFunction(copy);
    }
  }
}

} // namespace

void applyTargetAttributes(llvm::Module &module, const TargetConfig &target) {
  cloneCalleesPerVariant(module, target);
  for (llvm::Function &function : module.functions()) {
    if (function.isDeclaration())
      continue;
    // Functions of a variant are tagged; the rest (the dispatcher, kernels
    // before they are inlined away) get the fallback, the last variant.
    const IsaVariant *variant = &target.variants.back();
    llvm::Attribute tag = function.getFnAttribute(ModuleBuilder::kVariantAttribute);
    for (const IsaVariant &candidate : target.variants)
      if (tag.isValid() && tag.getValueAsString() == candidate.name)
        variant = &candidate;
    function.removeFnAttr(ModuleBuilder::kVariantAttribute);
    function.removeFnAttr("target-features");
    function.removeFnAttr("tune-cpu");
    function.addFnAttr("target-cpu", variant->cpu);
    if (!variant->features.empty())
      function.addFnAttr("target-features", variant->features);
    // Without this LLVM's cost model keeps to 256-bit vectors on AVX-512.
    std::string width = std::to_string(variant->vectorBits);
    function.addFnAttr("prefer-vector-width", width);
    function.addFnAttr("min-legal-vector-width", width);
  }
}

void optimiseModule(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(module, modules);
}

Status emitMachineCode(llvm::Module &module, llvm::TargetMachine &machine, const std::string &path,
                       bool assembly) {
  std::error_code error;
  llvm::raw_fd_ostream out(path, error, llvm::sys::fs::OF_None);
  if (error)
    return Status::error(fmt::format("cannot write {}: {}", path, error.message()));
  llvm::legacy::PassManager passes;
  auto fileType =
      assembly ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
  if (machine.addPassesToEmitFile(passes, out, nullptr, fileType))
    return Status::error("the LLVM target cannot emit this file type");
  passes.run(module);
  out.flush();
  return Status::success();
}

Status writeLLVMIR(const llvm::Module &module, const std::string &path) {
  std::error_code error;
  llvm::raw_fd_ostream out(path, error, llvm::sys::fs::OF_Text);
  if (error)
    return Status::error(fmt::format("cannot write {}: {}", path, error.message()));
  module.print(out, nullptr);
  return Status::success();
}

} // namespace cuvil
