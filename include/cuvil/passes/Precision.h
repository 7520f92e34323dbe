// What the assign-precision pass decides from: the policy (`--precision`)
// and the range of every value it quantizes, measured by calibration
// (tools/cuvil/Calibration.cpp) or read from a ranges file.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace cuvil {

struct PassContext; // Pass.h, which holds the PrecisionOptions

enum class PrecisionPolicy : uint8_t {
  FP32,        // every op as the model has it (bit for bit the default)
  Int8,        // Conv and MatMul with constant weights on the integer kernels
  Auto,        // int8 for the layers that keep the outputs within an accuracy budget
  FP16Weights, // MatMul weights stored and streamed in f16, arithmetic in f32
  BF16,        // MatMul weights in bf16, multiplied in bf16 where the CPU has AVX512_BF16
};

// Policies that quantize from calibrated ranges (int8, auto).
inline bool quantizesFromRanges(PrecisionPolicy policy) {
  return policy == PrecisionPolicy::Int8 || policy == PrecisionPolicy::Auto;
}

Expected<PrecisionPolicy> parsePrecisionPolicy(std::string_view text);

// The i8 weights (zero point 0) a target's integer tiles multiply exactly
// on their fastest path: within [-limit, limit], and, with pairedSets,
// each line meeting pairedBytesExact (include/cuvil/kernels/
// PairedByteProducts.h). assign-precision gives each channel the largest
// limit in [32, limit] that meets them (32 always does).
struct WeightBound {
  int limit = 63;
  bool pairedSets = false;
};
struct CpuModel;
// vpdpbusd: any i8 (127); x86-64 without it, vpmaddubsw with two sums
// added in i16: 127 with paired sets; else (aarch64's byte path) one
// vpmaddubsw sum, 63 (2 * 255 * 64 < 2^15).
WeightBound weightBoundFor(const CpuModel &cpu);
// A target's: its variants' least limit, paired sets if any needs them.
WeightBound combine(WeightBound a, WeightBound b);

// The values a calibrated tensor took, clipped by the calibration method.
struct CalibratedRange {
  float min = 0, max = 0;
};

// By value name, as the graph has them when assign-precision runs.
using CalibrationRanges = std::map<std::string, CalibratedRange>;

struct PrecisionOptions {
  PrecisionPolicy policy = PrecisionPolicy::FP32;
  CalibrationRanges ranges;
  // Under auto: the layers (by their result's name) to run on the integer
  // kernels; every other one stays FP32.
  std::optional<std::set<std::string>> layers;
  // The i8 weights it writes (weightBoundFor: the target's variants'
  // integer tiles).
  WeightBound weights;
};

// What assign-precision did: ops it could quantize, and those it did (the
// rest lacked ranges); under fp16-weights and bf16, pack-matmul's constant
// MatMul weights and those stored in 16 bits.
struct PrecisionStats {
  size_t quantizable = 0, quantized = 0;
};

// The values whose ranges the policy needs, in graph order: each
// quantizable op's activation input and the value its quantized result
// stands for (its own, or that of the Relu it absorbs).
std::vector<const Value *> valuesToCalibrate(const Graph &graph, const PassContext &context);

// One quantizable layer of a graph with quantization switches.
struct SwitchedLayer {
  std::string name; // its result's name (PrecisionOptions::layers)
  std::string op;   // the node, described
  double multiplyAccumulates;
};

// For the accuracy-budget search: adds a bool[N] graph input named
// `switches`; where element i is true, layer i (of the result, in graph
// order) computes what its integer kernel would, in float: its input
// quantized and dequantized with its calibrated range, its weights and
// bias as quantized, its result (after an absorbed Relu/Clip) quantized
// and dequantized; where false, what it computed before. Layers without
// ranges get no switch.
Expected<std::vector<SwitchedLayer>>
addQuantizationSwitches(Graph &graph, const PassContext &context, const std::string &switches);

// Multiply-accumulates of one run of every Conv and MatMul of the graph
// (at OPT shapes): what --precision auto's INT8 share is a share of.
double convMatMulMultiplyAccumulates(const Graph &graph);

// The ranges file (`<output>.ranges`, and `cuvil opt --ranges`): the line
// "cuvil-ranges 1 KEY", KEY what the ranges were measured from (a hash of
// the model, the calibration set and the method), then "NAME MIN MAX" per
// value, names percent-escaped, floats in hexadecimal (exact).
struct RangesFile {
  std::string key;
  CalibrationRanges ranges;
};
std::string formatRanges(const RangesFile &file);
Expected<RangesFile> parseRanges(std::string_view text);

} // namespace cuvil
