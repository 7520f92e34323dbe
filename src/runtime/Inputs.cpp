#include "Inputs.h"

#include "FileIO.h"
#include "NpyFormat.h"
#include "SymbolBinding.h"
#include "TensorProtoReader.h"

#include <stdexcept>
#include <string_view>

namespace cuvil::runtime {
namespace {

std::string quotedNames(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &name : names)
    text += (text.empty() ? "'" : ", '") + name + "'";
  return text;
}

std::vector<std::string> inputNames(const cuvil_model_info &model) {
  std::vector<std::string> names;
  for (uint32_t i = 0; i < model.num_inputs; ++i)
    names.emplace_back(model.inputs[i].name);
  return names;
}

} // namespace

std::vector<int64_t> modelShape(const cuvil_tensor_info &info) {
  return std::vector<int64_t>(info.dims, info.dims + info.rank);
}

std::string describeShape(const cuvil_tensor_info &info) {
  if (info.rank == 0)
    return "scalar";
  std::string text;
  for (int32_t d = 0; d < info.rank; ++d) {
    const char *expr = info.dim_exprs ? info.dim_exprs[d] : nullptr;
    bool compound = expr && std::string_view(expr).find_first_of(" *") != std::string_view::npos;
    if (d)
      text += 'x';
    if (!expr)
      text += std::to_string(info.dims[d]);
    else if (compound)
      text.append("(").append(expr).append(")");
    else
      text += expr;
  }
  return text;
}

std::vector<int64_t> bindSymbols(const cuvil_model_info &model,
                                 const std::vector<HostTensor> &inputs) {
  std::vector<const int64_t *> dims;
  std::vector<const void *> data;
  for (const HostTensor &input : inputs) {
    dims.push_back(input.shape().data());
    data.push_back(input.data());
  }
  std::vector<int64_t> symbols(model.num_symbols);
  char error[1024];
  if (!bindInputSymbols(model, dims.data(), data.data(), symbols.data(), error, sizeof error))
    throw std::runtime_error(error);
  return symbols;
}

const cuvil_path_info &selectPath(const cuvil_model_info &model,
                                  const std::vector<int64_t> &symbols) {
  for (uint32_t p = 0; p + 1 < model.num_paths; ++p) {
    const int64_t *values = model.paths[p].symbol_values;
    bool matches = true;
    for (uint32_t s = 0; values && s < model.num_symbols; ++s)
      matches &= model.symbols[s].from_data || symbols[s] == values[s];
    if (matches)
      return model.paths[p];
  }
  return model.paths[model.num_paths - 1];
}

HostTensor loadTensorFile(const std::string &path) {
  std::string bytes = readFile(path);
  try {
    // Anything that is not .npy is parsed as a TensorProto: it has no magic
    // number, so that parse is what rejects garbage.
    return isNpy(bytes) ? parseNpy(bytes) : parseTensorProto(bytes);
  } catch (const std::runtime_error &error) {
    throw std::runtime_error("'" + path + "': " + error.what() +
                             (isNpy(bytes) ? "" : " (and it is not a .npy file)"));
  }
}

std::vector<HostTensor> loadInputs(const std::vector<InputArg> &args,
                                   const cuvil_model_info &model) {
  std::vector<std::string> names = inputNames(model);
  // Resolve every name before reading any file, so that usage mistakes are
  // reported without waiting for large files.
  std::vector<const InputArg *> argFor(model.num_inputs, nullptr);
  for (const InputArg &arg : args) {
    size_t index = 0;
    if (arg.name.empty()) {
      if (model.num_inputs != 1)
        throw std::runtime_error("--input '" + arg.path + "' has no NAME=, but the model has " +
                                 std::to_string(model.num_inputs) + " inputs (" +
                                 quotedNames(names) + "); use --input NAME=FILE");
    } else {
      while (index < names.size() && names[index] != arg.name)
        ++index;
      if (index == names.size())
        throw std::runtime_error("unknown input '" + arg.name + "'; the model's inputs are " +
                                 (names.empty() ? "none" : quotedNames(names)));
    }
    if (argFor[index])
      throw std::runtime_error("input '" + names[index] + "' given more than once");
    argFor[index] = &arg;
  }
  std::vector<std::string> missing;
  for (size_t i = 0; i < names.size(); ++i)
    if (!argFor[i])
      missing.push_back(names[i]);
  if (!missing.empty())
    throw std::runtime_error("missing input" + std::string(missing.size() > 1 ? "s " : " ") +
                             quotedNames(missing) + "; pass --input NAME=FILE for each");

  std::vector<HostTensor> tensors;
  for (size_t i = 0; i < names.size(); ++i) {
    const cuvil_tensor_info &info = model.inputs[i];
    HostTensor tensor;
    try {
      tensor = loadTensorFile(argFor[i]->path);
    } catch (const std::runtime_error &error) {
      throw std::runtime_error("input '" + names[i] + "': " + error.what());
    }
    // numpy has no bfloat16: bf16 data travels as the uint16 bits.
    if (info.dtype == CUVIL_DTYPE_BF16 && tensor.dtype() == CUVIL_DTYPE_U16)
      tensor.reinterpretAs(CUVIL_DTYPE_BF16);
    bool matches = tensor.dtype() == info.dtype && tensor.shape().size() == size_t(info.rank);
    for (int32_t d = 0; matches && d < info.rank; ++d)
      matches = isSymbolicDim(info, d) || tensor.shape()[size_t(d)] == info.dims[d];
    if (!matches)
      throw std::runtime_error("input '" + names[i] + "': expected " + dtypeName(info.dtype) + " " +
                               describeShape(info) + ", but '" + argFor[i]->path + "' holds " +
                               dtypeName(tensor.dtype()) + " " + formatShape(tensor.shape()));
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

} // namespace cuvil::runtime
