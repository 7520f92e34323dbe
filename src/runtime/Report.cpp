#include "Report.h"

#include "Isa.h"

#include "DType.h"
#include "HostTensor.h"
#include "Inputs.h"
#include "NpyFormat.h"
#include "Outputs.h"

#include <bit>
#include <string>
#include <string_view>

namespace cuvil::runtime {
namespace {

// The model's strings come from the compiler; tolerate a null one anyway.
const char *text(const char *s) { return s ? s : ""; }

std::string jsonString(std::string_view s) {
  std::string quoted = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (uint8_t(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", unsigned(c));
      quoted += escape;
    } else {
      quoted += c;
    }
  }
  return quoted + '"';
}

// The values a --value / --value-range compile gave an input, each a
// number or a symbol's name (as JSON strings when `json`); empty if none.
std::vector<std::string> givenValues(const cuvil_model_info &model, const cuvil_tensor_info &info,
                                     bool json) {
  std::vector<std::string> values;
  for (int32_t k = 0; k < info.num_values; ++k) {
    int32_t s = info.value_symbols[k];
    if (s < 0 && isFloatingDType(info.dtype))
      values.push_back(formatReal(std::bit_cast<double>(info.values[k])));
    else
      values.push_back(s < 0  ? std::to_string(info.values[k])
                       : json ? jsonString(text(model.symbols[s].name))
                              : std::string(text(model.symbols[s].name)));
  }
  return values;
}

std::string joined(const std::vector<std::string> &parts) {
  std::string text;
  for (const std::string &part : parts)
    text += (text.empty() ? "" : ", ") + part;
  return text;
}

// A symbolic dim is its expression, as a string.
std::string jsonTensor(const cuvil_model_info &model, const cuvil_tensor_info &info,
                       bool isOutput) {
  std::string shape;
  for (int32_t d = 0; d < info.rank; ++d) {
    const char *expr = info.dim_exprs ? info.dim_exprs[d] : nullptr;
    shape += (d ? ", " : "") + (expr ? jsonString(expr) : std::to_string(info.dims[d]));
  }
  std::string json = "{\"name\": " + jsonString(text(info.name)) +
                     ", \"dtype\": " + jsonString(dtypeName(info.dtype)) + ", \"shape\": [" +
                     shape + "]";
  if (info.num_values > 0)
    json += ", \"values\": [" + joined(givenValues(model, info, true)) + "]";
  if (isOutput) {
    json += ", \"file\": " + jsonString(outputFileName(text(info.name)));
    if (const DTypeInfo *dtype = findDType(info.dtype))
      json += ", \"npy_descr\": " + jsonString(npyDescr(*dtype));
  }
  return json + "}";
}

std::string jsonTensors(const cuvil_model_info &model, const cuvil_tensor_info *infos,
                        uint32_t count, bool isOutput) {
  std::string json = "[";
  for (uint32_t i = 0; i < count; ++i)
    json += (i ? ", " : "") + jsonTensor(model, infos[i], isOutput);
  return json + "]";
}

std::string jsonSymbols(const cuvil_model_info &model) {
  std::string json = "[";
  for (uint32_t s = 0; s < model.num_symbols; ++s) {
    const cuvil_symbol_info &symbol = model.symbols[s];
    json += (s ? ", " : "") + std::string("{\"name\": ") + jsonString(text(symbol.name)) +
            ", \"min\": " + std::to_string(symbol.min) +
            ", \"opt\": " + std::to_string(symbol.opt) +
            ", \"max\": " + std::to_string(symbol.max) +
            ", \"from_data\": " + (symbol.from_data ? "true" : "false") + "}";
  }
  return json + "]";
}

// ", 256-bit vectors" where the variant's vector length is the CPU's (SVE).
std::string vectorLengthText() {
  int32_t bits = scalableVectorBits();
  return bits > 0 ? ", " + std::to_string(bits) + "-bit vectors" : std::string();
}

// "batch=1 sequence=128", or "any" for the generic path.
std::string pathShapes(const cuvil_model_info &model, const cuvil_path_info &path) {
  bool ranged = false;
  for (uint32_t s = 0; s < model.num_symbols; ++s)
    ranged |= !model.symbols[s].from_data;
  if (!path.symbol_values)
    return ranged ? "any shape in range" : "the model's shapes";
  std::string values;
  for (uint32_t s = 0; s < model.num_symbols; ++s) {
    if (model.symbols[s].from_data)
      continue; // any value: the run computes it
    if (!values.empty())
      values += ' ';
    values +=
        std::string(text(model.symbols[s].name)) + "=" + std::to_string(path.symbol_values[s]);
  }
  return values;
}

std::string jsonPaths(const cuvil_model_info &model) {
  std::string json = "[";
  for (uint32_t p = 0; p < model.num_paths; ++p) {
    const cuvil_path_info &path = model.paths[p];
    std::string values = "null";
    if (path.symbol_values) {
      values = "[";
      for (uint32_t s = 0; s < model.num_symbols; ++s)
        values += (s ? ", " : "") + (model.symbols[s].from_data
                                         ? std::string("null") // computed by the run
                                         : std::to_string(path.symbol_values[s]));
      values += "]";
    }
    json += (p ? ", " : "") + std::string("{\"name\": ") + jsonString(text(path.name)) +
            ", \"symbol_values\": " + values +
            ", \"arena_bytes\": " + std::to_string(path.arena_bytes) +
            ", \"kernel_calls\": " + std::to_string(path.num_kernel_calls) + "}";
  }
  return json + "]";
}

void printTensorLine(std::FILE *out, const cuvil_model_info &model, const cuvil_tensor_info &info,
                     bool isOutput) {
  std::string line = "  " + std::string(text(info.name)) + ": " + dtypeName(info.dtype) + " " +
                     describeShape(info);
  if (info.num_values > 0)
    line += " values [" + joined(givenValues(model, info, false)) + "]";
  if (isOutput) {
    line += " -> " + outputFileName(text(info.name));
    if (info.dtype == CUVIL_DTYPE_BF16)
      line += " (as '<u2' raw bfloat16 bits: numpy has no bfloat16)";
  }
  std::fprintf(out, "%s\n", line.c_str());
}

} // namespace

void printModelInfo(std::FILE *out, const cuvil_model_info &model, bool json) {
  if (json) {
    std::fprintf(out,
                 "{\"model_name\": %s, \"target\": %s, \"cpu\": %s, \"compiler_version\": %s, "
                 "\"abi_version\": %u, \"arena_bytes\": %llu, \"weights_bytes\": %llu, "
                 "\"weights_section\": %s, \"isa_variants\": %s, \"isa_selected\": %s, "
                 "\"symbols\": %s, \"paths\": %s, \"inputs\": %s, \"outputs\": %s}\n",
                 jsonString(text(model.model_name)).c_str(), jsonString(text(model.target)).c_str(),
                 jsonString(text(model.cpu)).c_str(),
                 jsonString(text(model.compiler_version)).c_str(), model.abi_version,
                 (unsigned long long)model.arena_bytes, (unsigned long long)model.weights_bytes,
                 model.weights_section ? jsonString(model.weights_section).c_str() : "null",
                 jsonString(text(model.isa_variants)).c_str(),
                 jsonString(selectedVariant(model)).c_str(), jsonSymbols(model).c_str(),
                 jsonPaths(model).c_str(),
                 jsonTensors(model, model.inputs, model.num_inputs, false).c_str(),
                 jsonTensors(model, model.outputs, model.num_outputs, true).c_str());
    return;
  }
  std::fprintf(out,
               "model:         %s\n"
               "target:        %s\n"
               "cpu:           %s\n"
               "compiler:      %s\n"
               "arena bytes:   %llu\n"
               "weights bytes: %llu%s%s%s\n"
               "isa variants:  %s (this CPU runs %s%s)\n",
               text(model.model_name), text(model.target), text(model.cpu),
               text(model.compiler_version), (unsigned long long)model.arena_bytes,
               (unsigned long long)model.weights_bytes,
               model.weights_section ? " (mapped from section " : "",
               model.weights_section ? model.weights_section : "",
               model.weights_section ? " at start-up)" : "", text(model.isa_variants),
               selectedVariant(model).c_str(), vectorLengthText().c_str());
  if (model.num_symbols) {
    std::fprintf(out, "symbols:\n");
    for (uint32_t s = 0; s < model.num_symbols; ++s) {
      const cuvil_symbol_info &symbol = model.symbols[s];
      if (symbol.from_data)
        std::fprintf(out, "  %s in [%lld, %lld], computed from data\n", text(symbol.name),
                     (long long)symbol.min, (long long)symbol.max);
      else
        std::fprintf(out, "  %s in [%lld, %lld], opt %lld\n", text(symbol.name),
                     (long long)symbol.min, (long long)symbol.max, (long long)symbol.opt);
    }
  }
  std::fprintf(out, "paths:\n");
  for (uint32_t p = 0; p < model.num_paths; ++p)
    std::fprintf(out, "  %s: %s, %u kernel calls, arena %llu bytes\n", text(model.paths[p].name),
                 pathShapes(model, model.paths[p]).c_str(), model.paths[p].num_kernel_calls,
                 (unsigned long long)model.paths[p].arena_bytes);
  std::fprintf(out, "inputs:\n");
  for (uint32_t i = 0; i < model.num_inputs; ++i)
    printTensorLine(out, model, model.inputs[i], false);
  std::fprintf(out, "outputs:\n");
  for (uint32_t i = 0; i < model.num_outputs; ++i)
    printTensorLine(out, model, model.outputs[i], true);
}

void printBenchReport(std::FILE *out, const cuvil_model_info &model, const cuvil_path_info &path,
                      const BenchStats &stats, uint64_t warmupRuns, unsigned threads, bool json) {
  if (json) {
    std::fprintf(out,
                 "{\"model_name\": %s, \"path\": %s, \"runs\": %zu, \"warmup\": %llu, "
                 "\"threads\": %u, "
                 "\"median_ms\": %.6f, \"p90_ms\": %.6f, \"p99_ms\": %.6f, \"min_ms\": %.6f, "
                 "\"max_ms\": %.6f, \"mean_ms\": %.6f, \"throughput_per_s\": %.3f}\n",
                 jsonString(text(model.model_name)).c_str(), jsonString(text(path.name)).c_str(),
                 stats.runs, (unsigned long long)warmupRuns, threads, stats.medianMs, stats.p90Ms,
                 stats.p99Ms, stats.minMs, stats.maxMs, stats.meanMs, stats.throughputPerSecond());
    return;
  }
  std::fprintf(out,
               "model:      %s (%s path)\n"
               "runs:       %zu timed after %llu warm-up, %u threads\n"
               "latency ms: median %.6g  p90 %.6g  p99 %.6g  min %.6g  mean %.6g\n"
               "throughput: %.1f inferences/s\n",
               text(model.model_name), text(path.name), stats.runs, (unsigned long long)warmupRuns,
               threads, stats.medianMs, stats.p90Ms, stats.p99Ms, stats.minMs, stats.meanMs,
               stats.throughputPerSecond());
}

} // namespace cuvil::runtime
