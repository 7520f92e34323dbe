#include "ModelInfo.h"

#include <fmt/format.h>

#include "cuvil/backend/Version.h"
#include "cuvil/runtime/ModelABI.h"

#include <bit>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <map>
#include <optional>

namespace cuvil {
namespace {

class ModelInfoEmitter {
public:
  explicit ModelInfoEmitter(llvm::Module &module)
      : module_(module), context_(module.getContext()), i32_(llvm::Type::getInt32Ty(context_)),
        i64_(llvm::Type::getInt64Ty(context_)), ptr_(llvm::PointerType::get(context_, 0)),
        tensorInfo_(llvm::StructType::get(context_,
                                          {ptr_, i32_, i32_, ptr_, ptr_, ptr_, i32_, ptr_, ptr_})) {
  }

  llvm::Constant *string(const std::string &text) {
    llvm::IRBuilder<> builder(context_);
    return builder.CreateGlobalStringPtr(text, "str", 0, &module_);
  }

  llvm::Constant *privateGlobal(llvm::Constant *init, const char *name) {
    auto *global = new llvm::GlobalVariable(module_, init->getType(), true,
                                            llvm::GlobalValue::PrivateLinkage, init, name);
    return global;
  }

  llvm::Constant *stringOrNull(const std::optional<std::string> &text) {
    return text ? string(*text)
                : llvm::ConstantPointerNull::get(llvm::PointerType::get(context_, 0));
  }

  template <typename T> llvm::Constant *array(const std::vector<T> &values, const char *name) {
    return privateGlobal(llvm::ConstantDataArray::get(context_, values), name);
  }

  llvm::Constant *pointerArray(const std::vector<llvm::Constant *> &values, const char *name) {
    return privateGlobal(
        llvm::ConstantArray::get(llvm::ArrayType::get(ptr_, values.size()), values), name);
  }

  // CUVIL_DIM_CONSTANT, the index of the symbol `dim` is, or
  // CUVIL_DIM_EXPRESSION.
  static int32_t symbolCode(const Dim &dim, const std::map<SymbolId, int32_t> &symbolIndex) {
    std::vector<SymbolId> symbols = dim.symbols();
    bool isSymbol = symbols.size() == 1 && dim == Dim::symbol(symbols[0]);
    return dim.isConstant() ? CUVIL_DIM_CONSTANT
           : isSymbol       ? symbolIndex.at(symbols[0])
                            : CUVIL_DIM_EXPRESSION;
  }

  // cuvil_tensor_info[] for the given values and names.
  llvm::Constant *tensorInfos(const std::vector<Value *> &values,
                              const std::vector<std::string> &names,
                              const std::map<SymbolId, int32_t> &symbolIndex) {
    std::vector<llvm::Constant *> entries;
    for (size_t i = 0; i < values.size(); ++i) {
      const TensorType &type = values[i]->type();
      std::vector<uint64_t> dims;
      std::vector<uint32_t> dimSymbols;
      std::vector<llvm::Constant *> exprs;
      for (const Dim &dim : type.shape) {
        dims.push_back(uint64_t(dim.max()));
        dimSymbols.push_back(uint32_t(symbolCode(dim, symbolIndex)));
        exprs.push_back(
            stringOrNull(dim.isConstant() ? std::nullopt : std::optional<std::string>(dim.str())));
      }
      // An input's values as --value / --value-range gave them.
      std::vector<uint64_t> given;
      std::vector<uint32_t> givenSymbols;
      if (const std::vector<Dim> *dimValues =
              values[i]->isGraphInput() ? values[i]->dimValues() : nullptr)
        for (const Dim &value : *dimValues) {
          given.push_back(uint64_t(value.max()));
          givenSymbols.push_back(uint32_t(symbolCode(value, symbolIndex)));
        }
      // A floating-point input's fixed values, as f64 bit patterns.
      if (const Tensor *data = values[i]->isGraphInput() ? values[i]->fixedData() : nullptr)
        for (int64_t k = 0; k < data->numElements(); ++k) {
          given.push_back(std::bit_cast<uint64_t>(data->getDouble(k)));
          givenSymbols.push_back(uint32_t(CUVIL_DIM_CONSTANT));
        }
      entries.push_back(llvm::ConstantStruct::get(
          tensorInfo_, {string(names[i]), llvm::ConstantInt::get(i32_, dtypeOnnxCode(type.dtype)),
                        llvm::ConstantInt::get(i32_, type.shape.size()), array(dims, "dims"),
                        array(dimSymbols, "dim_symbols"), pointerArray(exprs, "dim_exprs"),
                        llvm::ConstantInt::get(i32_, given.size()),
                        array(givenSymbols, "value_symbols"), array(given, "values")}));
    }
    auto *arrayType = llvm::ArrayType::get(tensorInfo_, entries.size());
    return privateGlobal(llvm::ConstantArray::get(arrayType, entries), "tensor_infos");
  }

  llvm::Module &module_;
  llvm::LLVMContext &context_;
  llvm::Type *i32_, *i64_, *ptr_;
  llvm::StructType *tensorInfo_;
};

} // namespace

void emitModelInfo(llvm::Module &module, const Graph &model, const std::vector<CodePath> &paths,
                   const ModuleBuilder &builder, const TargetConfig &target,
                   const WeightsPlacement &weights) {
  ModelInfoEmitter emitter(module);
  llvm::LLVMContext &context = module.getContext();
  std::vector<std::string> inputNames, outputNames;
  for (const Value *input : model.inputs())
    inputNames.push_back(input->name());
  for (size_t i = 0; i < model.outputs().size(); ++i)
    outputNames.push_back(model.outputName(i));
  llvm::Type *i32 = emitter.i32_, *i64 = emitter.i64_, *ptr = emitter.ptr_;

  std::map<SymbolId, int32_t> symbolIndex;
  auto *symbolType = llvm::StructType::get(context, {ptr, i64, i64, i64, i32});
  std::vector<llvm::Constant *> symbols;
  for (SymbolId id : model.symbols()) {
    const SymbolInfo &info = SymbolTable::global().info(id);
    symbolIndex.emplace(id, int32_t(symbols.size()));
    symbols.push_back(llvm::ConstantStruct::get(
        symbolType, {emitter.string(info.name), llvm::ConstantInt::get(i64, uint64_t(info.min)),
                     llvm::ConstantInt::get(i64, uint64_t(info.opt)),
                     llvm::ConstantInt::get(i64, uint64_t(info.max)),
                     llvm::ConstantInt::get(i32, info.fromData ? 1 : 0)}));
  }
  llvm::Constant *symbolTable = emitter.privateGlobal(
      llvm::ConstantArray::get(llvm::ArrayType::get(symbolType, symbols.size()), symbols),
      "symbols");

  auto *pathType = llvm::StructType::get(context, {ptr, ptr, i64, i32, ptr});
  std::vector<llvm::Constant *> pathInfos;
  for (size_t p = 0; p < paths.size(); ++p) {
    const PathBuild &build = builder.paths()[p];
    std::vector<llvm::Constant *> names;
    for (const std::string &name : build.kernelCallNames)
      names.push_back(emitter.string(name));
    // One value per symbol; those computed from data (after the input
    // symbols) are no part of the choice and read as their max.
    std::vector<uint64_t> values(paths[p].symbolValues.begin(), paths[p].symbolValues.end());
    for (size_t s = values.size(); !values.empty() && s < model.symbols().size(); ++s)
      values.push_back(uint64_t(SymbolTable::global().info(model.symbols()[s]).max));
    llvm::Constant *valueArray = paths[p].symbolValues.empty()
                                     ? static_cast<llvm::Constant *>(llvm::ConstantPointerNull::get(
                                           llvm::PointerType::get(context, 0)))
                                     : emitter.array(values, "symbol_values");
    pathInfos.push_back(llvm::ConstantStruct::get(
        pathType,
        {emitter.string(build.name), valueArray, llvm::ConstantInt::get(i64, build.arenaBytes),
         llvm::ConstantInt::get(i32, names.size()), emitter.pointerArray(names, "call_names")}));
  }
  llvm::Constant *pathTable = emitter.privateGlobal(
      llvm::ConstantArray::get(llvm::ArrayType::get(pathType, pathInfos.size()), pathInfos),
      "paths");

  auto *infoType =
      llvm::StructType::get(context, {i32, i32, i32, ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, i64,
                                      ptr, ptr, ptr, i32, i32, ptr, i32, ptr, ptr, i32, ptr, i32});
  std::vector<llvm::Constant *> errors;
  for (const std::string &message : builder.errorMessages())
    errors.push_back(emitter.string(message));
  std::vector<std::string> variantNames;
  for (const IsaVariant &variant : target.variants)
    variantNames.push_back(variant.name);
  llvm::Constant *null = llvm::ConstantPointerNull::get(llvm::PointerType::get(context, 0));
  llvm::Constant *weightsAddress = builder.weightsGlobal() ? builder.weightsGlobal() : null;
  llvm::Constant *init = llvm::ConstantStruct::get(
      infoType, {llvm::ConstantInt::get(i32, CUVIL_ABI_VERSION),
                 llvm::ConstantInt::get(i32, model.inputs().size()),
                 llvm::ConstantInt::get(i32, model.outputs().size()),
                 emitter.tensorInfos(model.inputs(), inputNames, symbolIndex),
                 emitter.tensorInfos(model.outputs(), outputNames, symbolIndex),
                 emitter.string(model.name()),
                 emitter.string(target.name),
                 emitter.string(target.cpu),
                 emitter.string(compilerVersion()),
                 llvm::ConstantInt::get(i64, builder.arenaBytes()),
                 llvm::ConstantInt::get(i64, builder.frameBytes()),
                 llvm::ConstantInt::get(i64, builder.weights().totalBytes),
                 weightsAddress,
                 weights.mappedSection.empty() ? null : emitter.string(weights.mappedSection),
                 emitter.string(fmt::format("{}", fmt::join(variantNames, ","))),
                 llvm::ConstantInt::get(i32, uint64_t(target.variants.back().level)),
                 llvm::ConstantInt::get(i32, symbols.size()),
                 symbolTable,
                 llvm::ConstantInt::get(i32, pathInfos.size()),
                 pathTable,
                 builder.outputDimsFunction(),
                 llvm::ConstantInt::get(i32, errors.size()),
                 emitter.pointerArray(errors, "errors"),
                 llvm::ConstantInt::get(i32, builder.drawsRandom() ? 1 : 0)});
  new llvm::GlobalVariable(module, infoType, true, llvm::GlobalValue::ExternalLinkage, init,
                           "cuvil_model");
}

} // namespace cuvil
