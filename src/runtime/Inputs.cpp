#include "Inputs.h"

#include "FileIO.h"
#include "NpyFormat.h"
#include "TensorProtoReader.h"

#include <stdexcept>

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
    std::vector<int64_t> expected = modelShape(info);
    if (tensor.dtype() != info.dtype || tensor.shape() != expected)
      throw std::runtime_error("input '" + names[i] + "': expected " + dtypeName(info.dtype) + " " +
                               formatShape(expected) + ", but '" + argFor[i]->path + "' holds " +
                               dtypeName(tensor.dtype()) + " " + formatShape(tensor.shape()));
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

} // namespace cuvil::runtime
