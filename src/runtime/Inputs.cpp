#include "Inputs.h"

#include "FileIO.h"
#include "NpyFormat.h"
#include "TensorProtoReader.h"

#include <bit>
#include <cstring>
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

namespace {

bool isSymbolic(const cuvil_tensor_info &info, int32_t d) {
  return info.dim_symbols && info.dim_symbols[d] >= 0;
}

} // namespace

namespace {

// Element k of an int64 or int32 input.
int64_t integerElement(const HostTensor &tensor, int32_t k) {
  if (tensor.dtype() == CUVIL_DTYPE_BOOL)
    return tensor.data()[k] != std::byte{0};
  if (tensor.dtype() == CUVIL_DTYPE_I32) {
    int32_t value;
    std::memcpy(&value, tensor.data() + size_t(k) * sizeof value, sizeof value);
    return value;
  }
  int64_t value;
  std::memcpy(&value, tensor.data() + size_t(k) * sizeof value, sizeof value);
  return value;
}

// Binds symbols to the values inputs give, each checked against its range
// and against the other places that give the same symbol.
class SymbolBinder {
public:
  explicit SymbolBinder(const cuvil_model_info &model)
      : model_(model), values_(model.num_symbols, 0), boundBy_(model.num_symbols) {}

  // `where` ("input 'x' dim 0") gives symbol s the value `value`.
  void bind(int32_t s, int64_t value, const std::string &where) {
    const cuvil_symbol_info &symbol = model_.symbols[s];
    if (value < symbol.min || value > symbol.max)
      throw std::runtime_error(where + " is " + std::to_string(value) + ", outside the range [" +
                               std::to_string(symbol.min) + ", " + std::to_string(symbol.max) +
                               "] of '" + symbol.name + "' the model was compiled for");
    std::string &first = boundBy_[size_t(s)];
    int64_t &bound = values_[size_t(s)];
    if (first.empty()) {
      first = where;
      bound = value;
    } else if (bound != value) {
      throw std::runtime_error(where + " is " + std::to_string(value) + ", but " + first + " is " +
                               std::to_string(bound) + ": both are '" + symbol.name + "'");
    }
  }

  std::vector<int64_t> take() { return std::move(values_); }

private:
  const cuvil_model_info &model_;
  std::vector<int64_t> values_;
  // Where each symbol got its value.
  std::vector<std::string> boundBy_;
};

} // namespace

std::vector<int64_t> bindSymbols(const cuvil_model_info &model,
                                 const std::vector<HostTensor> &inputs) {
  SymbolBinder binder(model);
  for (uint32_t i = 0; i < model.num_inputs; ++i) {
    const cuvil_tensor_info &info = model.inputs[i];
    std::string input = "input '" + std::string(info.name) + "'";
    for (int32_t d = 0; d < info.rank; ++d)
      if (isSymbolic(info, d))
        binder.bind(info.dim_symbols[d], inputs[i].shape()[size_t(d)],
                    input + " dim " + std::to_string(d));
    // The values a --value / --value-range compile gave the input's data
    // (loadInputs checked its dtype and element count).
    for (int32_t k = 0; k < info.num_values; ++k) {
      std::string where = input + " element " + std::to_string(k);
      if (isFloatingDType(info.dtype)) {
        double value =
            floatingElement(info.dtype, inputs[i].data() + size_t(k) * inputs[i].dtypeInfo().size);
        double fixed = std::bit_cast<double>(info.values[k]);
        if (!(value == fixed))
          throw std::runtime_error(where + " is " + formatReal(value) +
                                   ", but the model was compiled for " + formatReal(fixed) +
                                   " (--value)");
        continue;
      }
      int64_t value = integerElement(inputs[i], k);
      if (info.value_symbols[k] >= 0)
        binder.bind(info.value_symbols[k], value, where);
      else if (value != info.values[k])
        throw std::runtime_error(where + " is " + std::to_string(value) +
                                 ", but the model was compiled for " +
                                 std::to_string(info.values[k]) + " (--value)");
    }
  }
  return binder.take();
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
      matches = isSymbolic(info, d) || tensor.shape()[size_t(d)] == info.dims[d];
    if (!matches)
      throw std::runtime_error("input '" + names[i] + "': expected " + dtypeName(info.dtype) + " " +
                               describeShape(info) + ", but '" + argFor[i]->path + "' holds " +
                               dtypeName(tensor.dtype()) + " " + formatShape(tensor.shape()));
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

} // namespace cuvil::runtime
