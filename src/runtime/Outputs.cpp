#include "Outputs.h"

#include "FileIO.h"
#include "Inputs.h"
#include "NpyFormat.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

namespace cuvil::runtime {
namespace {

constexpr uint64_t kSummaryValues = 8;

template <typename T> T load(const std::byte *ptr) {
  T value;
  std::memcpy(&value, ptr, sizeof value);
  return value;
}

std::string formatElement(int32_t dtype, const std::byte *ptr) {
  char text[64];
  switch (dtype) {
  case CUVIL_DTYPE_F32:
    std::snprintf(text, sizeof text, "%g", double(load<float>(ptr)));
    break;
  case CUVIL_DTYPE_F64:
    std::snprintf(text, sizeof text, "%g", load<double>(ptr));
    break;
  case CUVIL_DTYPE_F16:
    std::snprintf(text, sizeof text, "%g", double(halfToFloat(load<uint16_t>(ptr))));
    break;
  case CUVIL_DTYPE_BF16:
    std::snprintf(text, sizeof text, "%g", double(bfloat16ToFloat(load<uint16_t>(ptr))));
    break;
  case CUVIL_DTYPE_BOOL:
    return load<uint8_t>(ptr) ? "true" : "false";
  case CUVIL_DTYPE_I8:
    return std::to_string(load<int8_t>(ptr));
  case CUVIL_DTYPE_U8:
    return std::to_string(load<uint8_t>(ptr));
  case CUVIL_DTYPE_I16:
    return std::to_string(load<int16_t>(ptr));
  case CUVIL_DTYPE_U16:
    return std::to_string(load<uint16_t>(ptr));
  case CUVIL_DTYPE_I32:
    return std::to_string(load<int32_t>(ptr));
  case CUVIL_DTYPE_U32:
    return std::to_string(load<uint32_t>(ptr));
  case CUVIL_DTYPE_I64:
    return std::to_string(load<int64_t>(ptr));
  default: // u64: HostTensor admits no other type
    return std::to_string(load<uint64_t>(ptr));
  }
  return text;
}

} // namespace

std::vector<HostTensor> allocateOutputs(const cuvil_model_info &model) {
  std::vector<HostTensor> outputs;
  for (uint32_t i = 0; i < model.num_outputs; ++i)
    outputs.emplace_back(model.outputs[i].dtype, modelShape(model.outputs[i]));
  return outputs;
}

void setOutputShapes(const cuvil_model_info &model, const std::vector<int64_t> &symbols,
                     std::vector<HostTensor> &outputs) {
  size_t total = 0;
  for (uint32_t i = 0; i < model.num_outputs; ++i)
    total += size_t(model.outputs[i].rank);
  std::vector<int64_t> dims(total);
  model.output_dims(symbols.data(), dims.data());
  size_t next = 0;
  for (uint32_t i = 0; i < model.num_outputs; ++i) {
    std::vector<int64_t> shape(dims.begin() + long(next),
                               dims.begin() + long(next) + model.outputs[i].rank);
    next += size_t(model.outputs[i].rank);
    outputs[i].shrinkTo(std::move(shape));
  }
}

std::string outputFileName(std::string_view outputName) {
  std::string fileName(outputName);
  for (char &c : fileName)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-'))
      c = '_';
  return fileName + ".npy";
}

void writeOutputs(const std::string &dir, const cuvil_model_info &model,
                  const std::vector<HostTensor> &outputs,
                  const std::vector<std::string> &inputPaths) {
  // Sanitising can map distinct names to one file; refuse rather than let one
  // output silently overwrite another.
  std::map<std::string, std::string> ownerOf;
  for (uint32_t i = 0; i < model.num_outputs; ++i) {
    std::string name = model.outputs[i].name;
    auto [it, inserted] = ownerOf.emplace(outputFileName(name), name);
    if (!inserted)
      throw std::runtime_error("outputs '" + it->second + "' and '" + name +
                               "' would both be written to " + it->first);
  }
  createDirectories(dir);
  for (uint32_t i = 0; i < model.num_outputs; ++i) {
    std::string path = dir + "/" + outputFileName(model.outputs[i].name);
    for (const std::string &input : inputPaths)
      if (sameFile(path, input))
        throw std::runtime_error("output '" + std::string(model.outputs[i].name) +
                                 "' would overwrite the input file '" + input +
                                 "'; choose another --output-dir");
  }
  for (uint32_t i = 0; i < model.num_outputs; ++i)
    writeFileAtomically(dir + "/" + outputFileName(model.outputs[i].name), encodeNpy(outputs[i]));
}

void printOutputSummary(std::FILE *out, const cuvil_model_info &model,
                        const std::vector<HostTensor> &outputs) {
  for (uint32_t i = 0; i < model.num_outputs; ++i) {
    const HostTensor &tensor = outputs[i];
    std::string values;
    uint64_t shown = std::min(tensor.numElements(), kSummaryValues);
    for (uint64_t e = 0; e < shown; ++e)
      values += (e ? ", " : "") +
                (tensor.dtype() == CUVIL_DTYPE_STRING
                     ? '"' + std::string(tensor.stringAt(e)) + '"'
                     : formatElement(tensor.dtype(), tensor.data() + e * tensor.dtypeInfo().size));
    if (shown < tensor.numElements())
      values += ", ... (" + std::to_string(tensor.numElements()) + " values)";
    std::fprintf(out, "%s: %s %s [%s]\n", model.outputs[i].name, dtypeName(tensor.dtype()).c_str(),
                 formatShape(tensor.shape()).c_str(), values.c_str());
  }
}

} // namespace cuvil::runtime
