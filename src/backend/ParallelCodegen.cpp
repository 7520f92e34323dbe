#include "ParallelCodegen.h"

#include "ObjectEmitter.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fmt/format.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <map>
#include <numeric>
#include <sched.h>
#include <thread>

namespace cuvil {
namespace {

// The most parts, and the builder's instructions per part (before any
// inlining). Each part optimises its own copy of the tiles and helpers its
// functions call (a convolution family's ~40 tile instances: ~0.7 s), so a
// part must carry enough of its own: ssdlite320 (590k) makes 15 parts,
// ResNet-50, MobileNetV2 and RegNetY-400MF (50-60k) 2, convnext_tiny 3,
// BERT-base and the Whisper encoder (9-14k) and every one-op model 1, which
// compiles as before, without a bitcode round trip.
constexpr size_t kInstructionsPerPart = 40000;
constexpr size_t kMaxParts = 16;

// The functions that are distributed (rather than copied into every part
// that uses them): the builder's roots and whatever must be defined once.
bool distributed(const llvm::Function &function, const std::set<const llvm::Function *> &roots) {
  return !function.isDeclaration() && (roots.count(&function) || !function.hasLocalLinkage());
}

struct UnionFind {
  std::vector<size_t> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  size_t find(size_t x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(size_t a, size_t b) { parent[find(a)] = find(b); }
};

// A function's instructions with those of the copied functions it calls
// counted at each call (the tiles and helpers the inliner will put there),
// a measure of the optimiser's work on it.
size_t inlinedSize(const llvm::Function &function,
                   const std::set<const llvm::Function *> &distributedFunctions,
                   std::map<const llvm::Function *, size_t> &memo) {
  if (auto found = memo.find(&function); found != memo.end())
    return found->second;
  memo[&function] = 0; // a recursive call adds nothing
  size_t size = 0;
  for (const llvm::BasicBlock &block : function)
    for (const llvm::Instruction &instruction : block) {
      ++size;
      auto *call = llvm::dyn_cast<llvm::CallBase>(&instruction);
      const llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
      if (callee && !callee->isDeclaration() && !distributedFunctions.count(callee))
        size += inlinedSize(*callee, distributedFunctions, memo);
    }
  return memo[&function] = size;
}

// The part each distributed function goes to.
std::map<const llvm::Function *, size_t> assignParts(const llvm::Module &module,
                                                     const std::set<const llvm::Function *> &roots,
                                                     size_t &parts) {
  std::vector<const llvm::Function *> members;
  std::map<const llvm::Function *, size_t> index;
  for (const llvm::Function &function : module)
    if (distributed(function, roots)) {
      index[&function] = members.size();
      members.push_back(&function);
    }
  // Roots that call one another share a unit; the dispatcher's calls of
  // the run functions (never inlined: another variant's code) do not join
  // them.
  UnionFind units(members.size());
  for (size_t i = 0; i < members.size(); ++i)
    if (roots.count(members[i]))
      for (const llvm::BasicBlock &block : *members[i])
        for (const llvm::Instruction &instruction : block)
          if (auto *call = llvm::dyn_cast<llvm::CallBase>(&instruction))
            if (auto found = index.find(call->getCalledFunction());
                found != index.end() && roots.count(found->first))
              units.join(i, found->second);
  // Units in order of their first function; their sizes.
  std::map<size_t, size_t> unitOf; // root index -> unit number
  std::vector<size_t> unitSize;
  std::vector<size_t> memberUnit(members.size());
  const std::set<const llvm::Function *> distributedFunctions(members.begin(), members.end());
  std::map<const llvm::Function *, size_t> sizes;
  size_t own = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    auto [at, inserted] = unitOf.try_emplace(units.find(i), unitSize.size());
    if (inserted)
      unitSize.push_back(0);
    memberUnit[i] = at->second;
    unitSize[at->second] += inlinedSize(*members[i], distributedFunctions, sizes);
    own += members[i]->getInstructionCount();
  }
  size_t total = std::accumulate(unitSize.begin(), unitSize.end(), size_t(0));
  parts = std::clamp<size_t>((own + kInstructionsPerPart - 1) / kInstructionsPerPart, 1,
                             std::min(kMaxParts, std::max<size_t>(unitSize.size(), 1)));
  // Units of one kernel share its tiles and helpers, of which each part
  // keeps a copy: dealt by size alone, 16 parts optimised most tiles 16
  // times (RegNetY-400MF: 1.7x the thread time of one part). So units go
  // in order of their specialisation's name (kernel, then variant) and the
  // parts are runs of that order of about equal size.
  std::vector<std::string> unitKey(unitSize.size());
  for (size_t i = 0; i < members.size(); ++i) {
    std::string name = members[i]->getName().str();
    std::string &key = unitKey[memberUnit[i]];
    bool spec = name.find(".spec") != std::string::npos;
    bool keySpec = key.find(".spec") != std::string::npos;
    if (key.empty() || (spec && !keySpec) || (spec == keySpec && name < key))
      key = name;
  }
  std::vector<size_t> order(unitSize.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return unitKey[a] < unitKey[b]; });
  std::vector<size_t> unitPart(unitSize.size());
  size_t before = 0, used = 0, last = 0;
  for (size_t unit : order) {
    // The part whose share of the total holds this unit's middle; parts a
    // large unit leaves empty are skipped.
    size_t share =
        std::min(parts - 1, (before + unitSize[unit] / 2) * parts / std::max<size_t>(total, 1));
    if (used == 0 || share != last)
      ++used;
    last = share;
    unitPart[unit] = used - 1;
    before += unitSize[unit];
  }
  parts = std::max<size_t>(used, 1);
  std::map<const llvm::Function *, size_t> partOf;
  for (size_t i = 0; i < members.size(); ++i)
    partOf[members[i]] = unitPart[memberUnit[i]];
  return partOf;
}

// The function an instruction or constant expression using a value lies
// in, or null (a global's initializer).
const llvm::Function *userFunction(const llvm::User *user) {
  if (auto *instruction = llvm::dyn_cast<llvm::Instruction>(user))
    return instruction->getFunction();
  return nullptr;
}

// Whether some use of `value` may end up in a part other than `part`.
bool usedOutside(const llvm::Value &value, size_t part,
                 const std::map<const llvm::Function *, size_t> &partOf) {
  for (const llvm::User *user : value.users()) {
    // A constant expression or aggregate is used where its users are.
    if (llvm::isa<llvm::Constant>(user) && !llvm::isa<llvm::GlobalValue>(user)) {
      if (usedOutside(*user, part, partOf))
        return true;
      continue;
    }
    const llvm::Function *function = userFunction(user);
    auto found = function ? partOf.find(function) : partOf.end();
    if (found == partOf.end() || found->second != part)
      return true;
  }
  return false;
}

// Makes every distributed function that another part may reference, and
// every variable that must exist once, a hidden global; says which
// variables are defined in part 0 only.
std::set<const llvm::GlobalVariable *>
externalise(llvm::Module &module, const std::map<const llvm::Function *, size_t> &partOf) {
  auto hide = [](llvm::GlobalValue &value) {
    if (value.hasLocalLinkage()) {
      if (!value.hasName())
        value.setName("cuvil.part.global"); // parts link by name
      value.setLinkage(llvm::GlobalValue::ExternalLinkage);
      value.setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
  };
  for (llvm::Function &function : module)
    if (auto found = partOf.find(&function);
        found != partOf.end() && usedOutside(function, found->second, partOf))
      hide(function);
  std::set<const llvm::GlobalVariable *> once;
  for (llvm::GlobalVariable &variable : module.globals()) {
    if (variable.isDeclaration() || (variable.isConstant() && variable.hasLocalLinkage()))
      continue; // declared, or copied into each part that reads it
    hide(variable);
    once.insert(&variable);
  }
  return once;
}

// The global values `user`'s operands name, through constant expressions
// and aggregates.
void namedGlobals(llvm::User &user, std::vector<llvm::GlobalValue *> &found,
                  std::set<llvm::Constant *> &seen) {
  for (llvm::Use &operand : user.operands()) {
    if (auto *global = llvm::dyn_cast<llvm::GlobalValue>(operand.get()))
      found.push_back(global);
    else if (auto *constant = llvm::dyn_cast<llvm::Constant>(operand.get()))
      if (seen.insert(constant).second)
        namedGlobals(*constant, found, seen);
  }
}

// Where each global of the module goes, by its position in the module's
// lists (which bitcode keeps): a function's part, or kCopied; whether a
// variable is defined in part 0 only.
constexpr size_t kCopied = ~size_t(0);
struct PartPlan {
  std::vector<size_t> functionPart;
  std::vector<bool> variableOnce;
};

// Reduces the lazily read module to part `part`: its functions, part 0 the
// variables that exist once, and the copied functions and constants these
// reach, read from the bitcode only when reached (a part that read the
// whole kernel library would spend its time on functions it drops);
// everything else becomes a declaration.
Status extractPart(llvm::Module &module, const PartPlan &plan, size_t part) {
  std::vector<llvm::Function *> functions;
  for (llvm::Function &function : module)
    functions.push_back(&function);
  std::vector<llvm::GlobalVariable *> variables;
  for (llvm::GlobalVariable &variable : module.globals())
    variables.push_back(&variable);
  if (functions.size() != plan.functionPart.size() || variables.size() != plan.variableOnce.size())
    return Status::error("internal error: a module part's globals differ from the module's");
  std::set<llvm::GlobalValue *> defined;
  std::vector<llvm::GlobalValue *> work;
  for (size_t i = 0; i < functions.size(); ++i)
    if (plan.functionPart[i] == part)
      work.push_back(functions[i]);
  for (size_t i = 0; i < variables.size(); ++i)
    if (plan.variableOnce[i] && part == 0)
      work.push_back(variables[i]);
  std::set<llvm::GlobalValue *> foreign;
  for (size_t i = 0; i < functions.size(); ++i)
    if (plan.functionPart[i] != kCopied && plan.functionPart[i] != part)
      foreign.insert(functions[i]);
  for (size_t i = 0; i < variables.size(); ++i)
    if (plan.variableOnce[i] && part != 0)
      foreign.insert(variables[i]);
  std::set<llvm::Constant *> seen;
  while (!work.empty()) {
    llvm::GlobalValue *value = work.back();
    work.pop_back();
    if (foreign.count(value) || !defined.insert(value).second)
      continue;
    if (llvm::Error error = value->materialize())
      return Status::error(fmt::format("internal error: reading a module part: {}",
                                       llvm::toString(std::move(error))));
    std::vector<llvm::GlobalValue *> named;
    if (auto *function = llvm::dyn_cast<llvm::Function>(value)) {
      for (llvm::BasicBlock &block : *function)
        for (llvm::Instruction &instruction : block)
          namedGlobals(instruction, named, seen);
    } else if (auto *variable = llvm::dyn_cast<llvm::GlobalVariable>(value)) {
      namedGlobals(*variable, named, seen);
    }
    work.insert(work.end(), named.begin(), named.end());
  }
  for (llvm::Function *function : functions)
    if (!defined.count(function) && !function->isDeclaration())
      function->deleteBody();
  for (llvm::GlobalVariable *variable : variables)
    if (!defined.count(variable) && !variable->isDeclaration()) {
      variable->setInitializer(nullptr);
      variable->setLinkage(llvm::GlobalValue::ExternalLinkage);
    }
  if (llvm::Error error = module.materializeAll())
    return Status::error(
        fmt::format("internal error: reading a module part: {}", llvm::toString(std::move(error))));
  return Status::success();
}

std::string bitcodeOf(const llvm::Module &module) {
  std::string bytes;
  llvm::raw_string_ostream out(bytes);
  llvm::WriteBitcodeToFile(module, out);
  out.flush();
  return bytes;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// O3 and the object file, each timed, with a target machine of its own.
Status optimiseAndEmit(llvm::Module &module, const TargetConfig &target,
                       const std::string &objectPath, double &optimiseSeconds,
                       double &codegenSeconds) {
  Expected<std::unique_ptr<llvm::TargetMachine>> machine = createTargetMachine(target);
  CUVIL_TRY(machine.status());
  auto start = std::chrono::steady_clock::now();
  optimiseModule(module, **machine);
  optimiseSeconds = secondsSince(start);
  start = std::chrono::steady_clock::now();
  Status emitted = emitMachineCode(module, **machine, objectPath, /*assembly=*/false);
  codegenSeconds = secondsSince(start);
  return emitted;
}

// One part on this thread, in its own context.
Status compilePart(const std::string &bitcode, const PartPlan &plan, size_t part,
                   const TargetConfig &target, const std::string &objectPath,
                   double &optimiseSeconds, double &codegenSeconds) {
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<llvm::Module>> module =
      llvm::getLazyBitcodeModule(llvm::MemoryBufferRef(bitcode, objectPath), context);
  if (!module)
    return Status::error(fmt::format("internal error: reading a module part: {}",
                                     llvm::toString(module.takeError())));
  CUVIL_TRY(extractPart(**module, plan, part));
  return optimiseAndEmit(**module, target, objectPath, optimiseSeconds, codegenSeconds);
}

// The CPUs this process may run on (a container's share, not the host's).
unsigned availableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return unsigned(std::max(CPU_COUNT(&set), 1));
  return std::max(std::thread::hardware_concurrency(), 1u);
}

} // namespace

Expected<std::vector<std::string>> compileInParts(llvm::Module &module,
                                                  const std::set<const llvm::Function *> &roots,
                                                  const TargetConfig &target,
                                                  const std::string &objectPrefix, unsigned jobs,
                                                  ParallelCodegenStats &stats) {
  size_t parts = 1;
  std::map<const llvm::Function *, size_t> partOf;
  // Aliases, ifuncs and appending arrays (llvm.used) would need their own
  // rules; the builder makes none, and such a module compiles whole.
  bool appending =
      std::any_of(module.global_begin(), module.global_end(),
                  [](const llvm::GlobalVariable &v) { return v.hasAppendingLinkage(); });
  if (module.alias_empty() && module.ifunc_empty() && !appending)
    partOf = assignParts(module, roots, parts);
  std::vector<std::string> objects;
  for (size_t part = 0; part < parts; ++part)
    objects.push_back(fmt::format("{}.{}.o", objectPrefix, part));
  stats.parts = parts;
  stats.threads = unsigned(std::clamp<size_t>(jobs ? jobs : availableCpus(), 1, parts));
  if (parts == 1) {
    CUVIL_TRY(
        optimiseAndEmit(module, target, objects[0], stats.optimiseSeconds, stats.codegenSeconds));
    return objects;
  }
  std::set<const llvm::GlobalVariable *> once = externalise(module, partOf);
  PartPlan plan;
  for (const llvm::Function &function : module) {
    auto found = partOf.find(&function);
    plan.functionPart.push_back(found == partOf.end() ? kCopied : found->second);
  }
  for (const llvm::GlobalVariable &variable : module.globals())
    plan.variableOnce.push_back(once.count(&variable) > 0);
  const std::string bitcode = bitcodeOf(module);

  std::vector<Status> results(parts);
  std::vector<double> optimise(parts, 0.0), codegen(parts, 0.0);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t part; (part = next++) < parts;)
      results[part] =
          compilePart(bitcode, plan, part, target, objects[part], optimise[part], codegen[part]);
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < stats.threads; ++t)
    threads.emplace_back(worker);
  worker();
  for (std::thread &thread : threads)
    thread.join();
  for (const Status &result : results)
    CUVIL_TRY(result);
  stats.optimiseSeconds = std::accumulate(optimise.begin(), optimise.end(), 0.0);
  stats.codegenSeconds = std::accumulate(codegen.begin(), codegen.end(), 0.0);
  return objects;
}

} // namespace cuvil
