// What the assign-precision pass decides from: the policy (`--precision`)
// and the range of every value it quantizes, measured by calibration
// (tools/cuvil/Calibration.cpp) or read from a ranges file.
#pragma once

#include "cuvil/ir/Graph.h"
#include "cuvil/support/Status.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cuvil {

struct PassContext; // Pass.h, which holds the PrecisionOptions

enum class PrecisionPolicy : uint8_t {
  FP32, // every op as the model has it (bit for bit the default)
  Int8, // Conv and MatMul with constant weights on the integer kernels
};

Expected<PrecisionPolicy> parsePrecisionPolicy(std::string_view text);

// The values a calibrated tensor took, clipped by the calibration method.
struct CalibratedRange {
  float min = 0, max = 0;
};

// By value name, as the graph has them when assign-precision runs.
using CalibrationRanges = std::map<std::string, CalibratedRange>;

struct PrecisionOptions {
  PrecisionPolicy policy = PrecisionPolicy::FP32;
  CalibrationRanges ranges;
};

// What assign-precision did: ops it could quantize, and those it did (the
// rest lacked ranges).
struct PrecisionStats {
  size_t quantizable = 0, quantized = 0;
};

// The values whose ranges the policy needs, in graph order: each
// quantizable op's activation input and the value its quantized result
// stands for (its own, or that of the Relu it absorbs).
std::vector<const Value *> valuesToCalibrate(const Graph &graph, const PassContext &context);

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
