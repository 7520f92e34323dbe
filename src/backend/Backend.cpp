#include "cuvil/backend/Backend.h"

#include "KernelLibrary.h"
#include "LibraryLinker.h"
#include "ModelInfo.h"
#include "ModuleBuilder.h"
#include "ObjectEmitter.h"
#include "ParallelCodegen.h"
#include "StaticLinker.h"

#include "cuvil/backend/Version.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <llvm/Analysis/ConstantFolding.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/GVN.h>
#include <llvm/Transforms/Scalar/SCCP.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <set>
#include <unistd.h>

namespace cuvil {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Replaces each load of a constant field of a parameter block copied to
// the stack (ModuleBuilder::specialise: a memcpy of the constant bytes,
// then stores of the run-time fields) by the field's value, read from the
// constant bytes. GVN's load forwarding does this too, but gives up past
// its scan limits in a large kernel, which left a dispatch that should fold
// in place, with tiles that use instructions the variant lacks. Blocks that
// anything else writes or escapes to are left to GVN.
void foldStackBlockLoads(llvm::Function &function) {
  const llvm::DataLayout &layout = function.getParent()->getDataLayout();
  std::vector<llvm::MemCpyInst *> copies;
  for (llvm::Instruction &instruction : function.getEntryBlock())
    if (auto *copy = llvm::dyn_cast<llvm::MemCpyInst>(&instruction))
      copies.push_back(copy);
  for (llvm::MemCpyInst *copy : copies) {
    auto *block = llvm::dyn_cast<llvm::AllocaInst>(copy->getDest());
    auto *bytes = llvm::dyn_cast<llvm::GlobalVariable>(copy->getSource());
    if (!block || !bytes || !bytes->isConstant() || !bytes->hasDefinitiveInitializer())
      continue;
    // The bytes stored at run time, [begin, end); the loads to fold.
    std::vector<std::pair<int64_t, int64_t>> stored;
    std::vector<llvm::LoadInst *> loads;
    std::vector<llvm::Value *> pointers = {block};
    bool known = true;
    while (known && !pointers.empty()) {
      llvm::Value *pointer = pointers.back();
      pointers.pop_back();
      for (llvm::User *user : pointer->users()) {
        if (llvm::isa<llvm::GetElementPtrInst>(user)) {
          pointers.push_back(user);
        } else if (auto *load = llvm::dyn_cast<llvm::LoadInst>(user)) {
          loads.push_back(load);
        } else if (auto *store = llvm::dyn_cast<llvm::StoreInst>(user);
                   store && store->getPointerOperand() == pointer) {
          int64_t offset = 0;
          known = llvm::GetPointerBaseWithConstantOffset(pointer, offset, layout) == block;
          stored.emplace_back(offset, offset + int64_t(layout.getTypeStoreSize(
                                                   store->getValueOperand()->getType())));
        } else if (user != copy && !llvm::isa<llvm::LifetimeIntrinsic>(user)) {
          known = false;
        }
      }
    }
    if (!known)
      continue;
    for (llvm::LoadInst *load : loads) {
      int64_t offset = 0;
      if (llvm::GetPointerBaseWithConstantOffset(load->getPointerOperand(), offset, layout) !=
          block)
        continue;
      const int64_t end = offset + int64_t(layout.getTypeStoreSize(load->getType()));
      if (std::any_of(stored.begin(), stored.end(), [&](const auto &range) {
            return offset < range.second && range.first < end;
          }))
        continue;
      if (llvm::Constant *value = llvm::ConstantFoldLoadFromConstPtr(
              bytes, load->getType(), llvm::APInt(64, uint64_t(offset)), layout)) {
        load->replaceAllUsesWith(value);
        load->eraseFromParent();
      }
    }
  }
}

// Runs constant propagation and branch folding on each specialisation, so a
// kernel's run-time dispatch over tile instances collapses to the instances
// its constant arguments select. A specialisation with run-time values
// reads its parameter block from a stack copy (see ModuleBuilder::
// specialise): scalar replacement and load forwarding first turn the
// copy's constant fields back into constants.
void pruneSpecialisations(const std::vector<llvm::Function *> &specialisations,
                          const std::set<const llvm::Function *> &runTimeSpecialisations) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager analyses;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder;
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(analyses);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, analyses, sccs, modules);
  llvm::FunctionPassManager prune, forward;
  prune.addPass(llvm::SCCPPass());
  prune.addPass(llvm::SimplifyCFGPass());
  forward.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  forward.addPass(llvm::InstCombinePass());
  forward.addPass(llvm::GVNPass());
  for (llvm::Function *function : specialisations) {
    if (runTimeSpecialisations.count(function)) {
      foldStackBlockLoads(*function);
      forward.run(*function, analyses);
    }
    prune.run(*function, analyses);
  }
}

// Links the kernels the module calls, inlines each into its specialisation
// (where its constant arguments then fold) and hides everything but the ABI.
// Tile instances (CUVIL_TILE, noinline in the bitcode) are inlined by the
// optimiser only where the pruned dispatch still calls them: cloning every
// instance into every call made compiling ResNet-50 take 5 s longer.
Status linkKernels(llvm::Module &module, std::unique_ptr<llvm::Module> kernels,
                   const std::vector<llvm::CallInst *> &callSites,
                   const std::set<const llvm::Function *> &runTimeSpecialisations) {
  kernels->setTargetTriple(module.getTargetTriple());
  kernels->setDataLayout(module.getDataLayout());
  std::vector<std::string> tiles;
  for (const llvm::Function &function : *kernels)
    if (!function.isDeclaration() && function.hasFnAttribute(llvm::Attribute::NoInline))
      tiles.push_back(function.getName().str());
  if (llvm::Linker::linkModules(module, std::move(kernels), llvm::Linker::LinkOnlyNeeded))
    return Status::error("internal error: linking the kernel library failed");
  std::vector<llvm::Function *> specialisations;
  for (llvm::CallInst *call : callSites) {
    specialisations.push_back(call->getFunction());
    llvm::InlineFunctionInfo info;
    llvm::InlineResult result = llvm::InlineFunction(*call, info);
    if (!result.isSuccess())
      return Status::error(
          fmt::format("internal error: cannot inline kernel: {}", result.getFailureReason()));
  }
  pruneSpecialisations(specialisations, runTimeSpecialisations);
  for (const std::string &name : tiles)
    if (llvm::Function *tile = module.getFunction(name)) {
      tile->removeFnAttr(llvm::Attribute::NoInline);
      tile->addFnAttr(llvm::Attribute::AlwaysInline);
    }
  for (llvm::Function &function : module.functions())
    if (!function.isDeclaration() && function.getName() != "cuvil_run")
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  return Status::success();
}

// Has `write` write the output to a temporary file next to `path`, then
// renames it over `path`: a failed or killed compile leaves the old file
// (or none), and compiles into one directory never see each other's parts.
// "-" is standard output, written directly.
Status writeAtomically(const std::string &path,
                       const std::function<Status(const std::string &)> &write) {
  if (path == "-")
    return write(path);
  std::string temporary = fmt::format("{}.tmp.{}", path, ::getpid());
  Status status = write(temporary);
  std::error_code error;
  if (status.ok()) {
    std::filesystem::rename(temporary, path, error);
    if (error)
      status = Status::error(fmt::format("cannot write {}: {}", path, error.message()));
  }
  if (!status.ok())
    std::filesystem::remove(temporary, error);
  return status;
}

std::string temporaryDirectory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "cuvil-XXXXXX").string();
  return mkdtemp(pattern.data()) ? pattern : std::string();
}

Status writeTextFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  return out ? Status::success() : Status::error(fmt::format("cannot write {}", path));
}

// What a library's header says the model is.
std::vector<std::string> describeModel(const Graph &model, const TargetConfig &target) {
  std::vector<std::string> lines = {fmt::format("Model '{}', {} for {} (cpu {}).", model.name(),
                                                compilerVersion(), target.name, target.cpu)};
  for (const Value *input : model.inputs())
    lines.push_back(fmt::format("input  {}: {}", input->name(), input->type().str()));
  for (const Value *output : model.outputs())
    lines.push_back(fmt::format("output {}: {}", output->name(), output->type().str()));
  return lines;
}

// The dot products the model's kernels use, as its ops declare them.
DotProducts dotProductsOf(const std::vector<CodePath> &paths) {
  DotProducts products;
  for (const CodePath &path : paths)
    for (const auto &node : path.graph->nodes()) {
      DotProducts used = LoweringRegistry::instance().dotProducts(*node);
      products.int8 |= used.int8;
      products.bf16 |= used.bf16;
    }
  return products;
}

// At least the bytes of weights the builder embeds: every constant of every
// path and region, 64-byte aligned as it lays them out.
uint64_t weightsBound(const Graph &graph) {
  uint64_t bytes = 0;
  for (const Value *constant : graph.constants())
    bytes += (std::max<uint64_t>(constant->constant().byteSize(), 1) + 63) / 64 * 64;
  for (const auto &node : graph.nodes())
    for (size_t r = 0; r < node->numRegions(); ++r)
      bytes += weightsBound(node->region(r));
  return bytes;
}

uint64_t weightsBound(const std::vector<CodePath> &paths) {
  uint64_t bytes = 0;
  for (const CodePath &path : paths)
    bytes += weightsBound(*path.graph);
  return bytes;
}

} // namespace

Status compileToOutput(const Graph &model, const std::vector<CodePath> &paths,
                       const BackendOptions &requested, BackendStats &stats) {
  BackendOptions options = requested;
  options.target = variantsFor(requested.target, dotProductsOf(paths));
  stats.cpu = options.target.cpu;
  bool library = options.emit == EmitKind::StaticLibrary || options.emit == EmitKind::SharedLibrary;
  LibraryOutput libraryOutput;
  if (library) {
    Expected<LibraryOutput> parsed =
        parseLibraryOutput(options.outputPath, options.emit == EmitKind::SharedLibrary);
    CUVIL_TRY(parsed.status());
    libraryOutput = *parsed;
  }
  auto start = Clock::now();
  llvm::LLVMContext context;
  Expected<std::unique_ptr<llvm::TargetMachine>> machine = createTargetMachine(options.target);
  CUVIL_TRY(machine.status());
  Expected<std::unique_ptr<llvm::Module>> kernels =
      loadKernelLibrary(context, options.target.triple);
  CUVIL_TRY(kernels.status());

  auto module = std::make_unique<llvm::Module>(model.name(), context);
  module->setTargetTriple(options.target.triple);
  module->setDataLayout((*machine)->createDataLayout());
  // Decided before lowering, from a bound on the weights (the builder shares
  // equal constants). A library's section is named after it: two models'
  // libraries may link into one program.
  WeightsPlacement weights{"cuvil_weights", ""};
  if (options.mapWeights || weightsBound(paths) >= kLoadedWeightsLimit)
    weights.mappedSection =
        library ? fmt::format(".cuvil_weights.{}", libraryOutput.name) : ".cuvil_weights";
  ModuleBuilder builder(*module, **kernels, model, paths, options.target, weights);
  CUVIL_TRY(builder.build());
  emitModelInfo(*module, model, paths, builder, options.target, weights);
  stats.weightsMapped = !weights.mappedSection.empty();
  stats.arenaBytes = builder.arenaBytes();
  stats.weightsBytes = builder.weights().totalBytes;
  for (const PathBuild &path : builder.paths())
    stats.paths.push_back({path.name, path.arenaBytes, path.kernelCallNames.size()});
  stats.specialisations = builder.specialisations();
  CUVIL_TRY(linkKernels(*module, kernels.take(), builder.kernelCallSites(),
                        builder.runTimeSpecialisations()));
  stats.buildSeconds = secondsSince(start);

  std::set<const llvm::Function *> roots;
  for (const llvm::Function &function : *module)
    if (function.hasFnAttribute(ModuleBuilder::kVariantAttribute))
      roots.insert(&function);
  applyTargetAttributes(*module, options.target);

  // One output file of the whole module: optimised and emitted as one.
  if (options.emit == EmitKind::LLVMIR || options.emit == EmitKind::Assembly ||
      options.emit == EmitKind::Object) {
    start = Clock::now();
    optimiseModule(*module, **machine);
    stats.optimiseSeconds = secondsSince(start);
    Status written = writeAtomically(options.outputPath, [&](const std::string &path) {
      return options.emit == EmitKind::LLVMIR
                 ? writeLLVMIR(*module, path)
                 : emitMachineCode(*module, **machine, path, options.emit == EmitKind::Assembly);
    });
    stats.codegenWallSeconds = secondsSince(start);
    stats.codegenSeconds = stats.codegenWallSeconds - stats.optimiseSeconds;
    return written;
  }

  // The objects go next to the output when kept, else into a fresh
  // temporary directory that is removed afterwards (never anything else).
  std::filesystem::path workDir = std::filesystem::path(options.outputPath).parent_path();
  if (!options.keepTemporaries) {
    workDir = temporaryDirectory();
    if (workDir.empty())
      return Status::error(fmt::format("cannot create a temporary directory in {}",
                                       std::filesystem::temp_directory_path().string()));
  } else if (workDir.empty()) {
    workDir = std::filesystem::current_path();
  }
  // Removed however the compile ends (a failed part returns early).
  struct TemporaryDirectory {
    std::filesystem::path path;
    ~TemporaryDirectory() {
      std::error_code error;
      if (!path.empty())
        std::filesystem::remove_all(path, error);
    }
  } temporaries{options.keepTemporaries ? std::filesystem::path() : workDir};
  std::string weightsObject = (workDir / "weights.o").string();
  start = Clock::now();
  ParallelCodegenStats parallel;
  Expected<std::vector<std::string>> objects = compileInParts(
      *module, roots, options.target, (workDir / "model").string(), options.jobs, parallel);
  CUVIL_TRY(objects.status());
  stats.optimiseSeconds = parallel.optimiseSeconds;
  stats.codegenSeconds = parallel.codegenSeconds;
  stats.codegenParts = parallel.parts;
  stats.codegenThreads = parallel.threads;
  const ElfMachine elfMachine =
      options.target.triple.starts_with("aarch64") ? ElfMachine::AArch64 : ElfMachine::X86_64;
  CUVIL_TRY(writeWeightsObject(weightsObject, weights, elfMachine, builder.weights().totalBytes,
                               builder.weights().pieces));
  stats.codegenWallSeconds = secondsSince(start);
  std::vector<std::string> linkObjects = *objects;
  linkObjects.push_back(weightsObject);
  start = Clock::now();
  Status linked =
      library ? writeAtomically(libraryOutput.libraryPath(),
                                [&](const std::string &path) {
                                  return linkLibrary(options.target, linkObjects, workDir.string(),
                                                     libraryOutput, path);
                                })
              : writeAtomically(options.outputPath, [&](const std::string &path) {
                  return linkExecutable(options.target, linkObjects, workDir.string(), path);
                });
  if (linked.ok() && library)
    linked = writeAtomically(libraryOutput.headerPath(), [&](const std::string &path) {
      return writeTextFile(path,
                           libraryHeader(libraryOutput, describeModel(model, options.target)));
    });
  stats.linkSeconds = secondsSince(start);
  return linked;
}

} // namespace cuvil
