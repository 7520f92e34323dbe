#include "ModelInfo.h"

#include <fmt/format.h>

#include "cuvil/backend/Version.h"
#include "cuvil/runtime/ModelABI.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>

namespace cuvil {
namespace {

class ModelInfoEmitter {
public:
  explicit ModelInfoEmitter(llvm::Module &module)
      : module_(module), context_(module.getContext()), i32_(llvm::Type::getInt32Ty(context_)),
        i64_(llvm::Type::getInt64Ty(context_)), ptr_(llvm::PointerType::get(context_, 0)),
        tensorInfo_(llvm::StructType::get(context_, {ptr_, i32_, i32_, ptr_})) {}

  llvm::Constant *string(const std::string &text) {
    llvm::IRBuilder<> builder(context_);
    return builder.CreateGlobalStringPtr(text, "str", 0, &module_);
  }

  llvm::Constant *privateGlobal(llvm::Constant *init, const char *name) {
    auto *global = new llvm::GlobalVariable(module_, init->getType(), true,
                                            llvm::GlobalValue::PrivateLinkage, init, name);
    return global;
  }

  // cuvil_tensor_info[] for the given values and names.
  llvm::Constant *tensorInfos(const std::vector<Value *> &values,
                              const std::vector<std::string> &names) {
    std::vector<llvm::Constant *> entries;
    for (size_t i = 0; i < values.size(); ++i) {
      const TensorType &type = values[i]->type();
      std::vector<uint64_t> dims(type.shape.begin(), type.shape.end());
      llvm::Constant *dimsArray =
          privateGlobal(llvm::ConstantDataArray::get(context_, dims), "dims");
      entries.push_back(llvm::ConstantStruct::get(
          tensorInfo_, {string(names[i]), llvm::ConstantInt::get(i32_, dtypeOnnxCode(type.dtype)),
                        llvm::ConstantInt::get(i32_, type.shape.size()), dimsArray}));
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

void emitModelInfo(llvm::Module &module, const Graph &graph, const TargetConfig &target,
                   uint64_t arenaBytes, uint64_t weightsBytes,
                   const std::vector<std::string> &kernelCallNames) {
  ModelInfoEmitter emitter(module);
  std::vector<std::string> inputNames, outputNames;
  for (const Value *input : graph.inputs())
    inputNames.push_back(input->name());
  for (size_t i = 0; i < graph.outputs().size(); ++i)
    outputNames.push_back(graph.outputName(i));

  llvm::Type *i32 = emitter.i32_, *i64 = emitter.i64_, *ptr = emitter.ptr_;
  std::vector<llvm::Constant *> names;
  for (const std::string &name : kernelCallNames)
    names.push_back(emitter.string(name));
  llvm::Constant *nameTable = emitter.privateGlobal(
      llvm::ConstantArray::get(llvm::ArrayType::get(ptr, names.size()), names), "call_names");
  auto *infoType =
      llvm::StructType::get(module.getContext(), {i32, i32, i32, ptr, ptr, ptr, ptr, ptr, ptr, i64,
                                                  i64, i32, ptr, ptr, i32});
  std::vector<std::string> variantNames;
  for (const IsaVariant &variant : target.variants)
    variantNames.push_back(variant.name);
  llvm::Constant *init = llvm::ConstantStruct::get(
      infoType,
      {llvm::ConstantInt::get(i32, CUVIL_ABI_VERSION),
       llvm::ConstantInt::get(i32, graph.inputs().size()),
       llvm::ConstantInt::get(i32, graph.outputs().size()),
       emitter.tensorInfos(graph.inputs(), inputNames),
       emitter.tensorInfos(graph.outputs(), outputNames), emitter.string(graph.name()),
       emitter.string(target.name), emitter.string(target.cpu), emitter.string(compilerVersion()),
       llvm::ConstantInt::get(i64, arenaBytes), llvm::ConstantInt::get(i64, weightsBytes),
       llvm::ConstantInt::get(i32, kernelCallNames.size()), nameTable,
       emitter.string(fmt::format("{}", fmt::join(variantNames, ","))),
       llvm::ConstantInt::get(i32, uint64_t(target.variants.back().level))});
  new llvm::GlobalVariable(module, infoType, true, llvm::GlobalValue::ExternalLinkage, init,
                           "cuvil_model");
}

} // namespace cuvil
