// ModuleBuilder's run-time dims: the value of a dim expression computed
// from the symbol slots where the run reaches it, each atom once per basic
// block while the symbols stand (see ModuleBuilder::atoms_), and the
// stores that give symbols and shape tensors their values.
#include "ModuleBuilder.h"

#include <fmt/format.h>
#include <string>

namespace cuvil {

// Where the run keeps the symbol's value.
llvm::Value *ModuleBuilder::symbolSlot(llvm::IRBuilder<> &builder, SymbolId symbol,
                                       llvm::Value *symbols) {
  auto slot = symbolSlots_.find(symbol);
  if (slot == symbolSlots_.end()) {
    addressStatus_ = Status::error(fmt::format("internal error: symbol {} is not the model's",
                                               SymbolTable::global().info(symbol).name));
    return symbols ? symbols : symbolsBase(builder);
  }
  return builder.CreateConstInBoundsGEP1_64(builder.getInt64Ty(),
                                            symbols ? symbols : symbolsBase(builder), slot->second);
}

namespace {

// Text that names an atom exactly (symbols by id, not by name).
std::string dimKey(const Dim &dim);
std::string atomKey(const Dim::Atom &atom) {
  if (atom.kind == Dim::Atom::Kind::Symbol)
    return fmt::format("#{}", atom.symbol);
  return fmt::format("{}({},{})", int(atom.kind), dimKey(atom.a), dimKey(atom.b));
}
std::string dimKey(const Dim &dim) {
  std::string key = std::to_string(dim.constantTerm());
  for (const Dim::Term &term : dim.terms()) {
    key += fmt::format("+{}", term.coeff);
    for (const Dim::Atom &atom : term.factors) {
      key += '*';
      key += atomKey(atom);
    }
  }
  return key;
}

} // namespace

// The atom's value here: computed once per block until a symbol changes.
llvm::Value *ModuleBuilder::emitAtom(llvm::IRBuilder<> &builder, const Dim::Atom &atom,
                                     llvm::Value *symbols) {
  std::map<std::string, llvm::Value *> &known = atoms_[{builder.GetInsertBlock(), symbols}];
  std::string key = atomKey(atom);
  if (auto found = known.find(key); found != known.end())
    return found->second;
  return known[key] = computeAtom(builder, atom, symbols);
}

// A symbol's load, min/max as a select, and floor(a / b) for the dims'
// integers (b may be negative; 0 gives 0, as Dim::evaluate has it).
llvm::Value *ModuleBuilder::computeAtom(llvm::IRBuilder<> &builder, const Dim::Atom &atom,
                                        llvm::Value *symbols) {
  llvm::Type *i64 = builder.getInt64Ty();
  switch (atom.kind) {
  case Dim::Atom::Kind::Symbol:
    return builder.CreateLoad(i64, symbolSlot(builder, atom.symbol, symbols));
  case Dim::Atom::Kind::FloorDiv: {
    llvm::Value *a = emitDim(builder, atom.a, symbols);
    llvm::Value *b = emitDim(builder, atom.b, symbols);
    llvm::Value *zero = builder.getInt64(0);
    llvm::Value *isZero = builder.CreateICmpEQ(b, zero);
    llvm::Value *divisor = builder.CreateSelect(isZero, builder.getInt64(1), b);
    llvm::Value *q = builder.CreateSDiv(a, divisor);
    llvm::Value *r = builder.CreateSRem(a, divisor);
    // Truncation rounds towards zero: one less where the signs differ.
    llvm::Value *inexact = builder.CreateICmpNE(r, zero);
    llvm::Value *signsDiffer = builder.CreateICmpSLT(builder.CreateXor(r, divisor), zero);
    llvm::Value *floor =
        builder.CreateSub(q, builder.CreateZExt(builder.CreateAnd(inexact, signsDiffer), i64));
    return builder.CreateSelect(isZero, zero, floor);
  }
  case Dim::Atom::Kind::Min:
  case Dim::Atom::Kind::Max: {
    llvm::Value *a = emitDim(builder, atom.a, symbols);
    llvm::Value *b = emitDim(builder, atom.b, symbols);
    bool isMin = atom.kind == Dim::Atom::Kind::Min;
    return builder.CreateSelect(isMin ? builder.CreateICmpSLT(a, b) : builder.CreateICmpSGT(a, b),
                                a, b);
  }
  }
  return builder.getInt64(0);
}

llvm::Value *ModuleBuilder::emitDim(llvm::IRBuilder<> &builder, const Dim &dim,
                                    llvm::Value *symbols) {
  llvm::Value *sum = builder.getInt64(uint64_t(dim.constantTerm()));
  for (const Dim::Term &term : dim.terms()) {
    llvm::Value *product = builder.getInt64(uint64_t(term.coeff));
    for (const Dim::Atom &atom : term.factors)
      product = builder.CreateMul(product, emitAtom(builder, atom, symbols));
    sum = builder.CreateAdd(sum, product);
  }
  return sum;
}

Status ModuleBuilder::storeDims(const Value *destination, std::span<const Dim> values) {
  llvm::Type *element = runBuilder_->getIntNTy(unsigned(8 * dtypeSize(destination->type().dtype)));
  llvm::Value *base = address(*runBuilder_, destination, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    llvm::Value *value = emitDim(*runBuilder_, values[i]);
    runBuilder_->CreateStore(runBuilder_->CreateTrunc(value, element),
                             runBuilder_->CreateConstInBoundsGEP1_64(element, base, i));
  }
  return std::exchange(addressStatus_, Status::success());
}

Status ModuleBuilder::assignSymbol(SymbolId symbol, const Dim &value) {
  runBuilder_->CreateStore(emitDim(*runBuilder_, value), symbolSlot(*runBuilder_, symbol));
  forgetAtoms();
  return std::exchange(addressStatus_, Status::success());
}

} // namespace cuvil
