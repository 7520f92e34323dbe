// Shared by the quantization ops (QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear, QLinearMatMul, QLinearConv): the quantized element
// types, where each element finds its scale and zero point (per tensor, per
// axis or in blocks along it), and the rounding the references compute, the
// kernels' twin (src/kernels/QuantizedValue.h).
#pragma once

#include "OpSupport.h"
#include "cuvil/kernels/Quantize.h"

namespace cuvil::ops {

// The values a quantized type holds.
struct QuantizedRange {
  int64_t low, high;
};
// u8, i8, u16, i16 (the results of QuantizeLinear), and i32 when
// `withI32` (the inputs of DequantizeLinear); nullopt for other types.
std::optional<QuantizedRange> quantizedRange(DType dtype, bool withI32 = false);

// saturate(round_half_even(v) + zeroPoint) in `range`, NaN giving the low
// end, as ONNX Runtime computes it.
int64_t roundToQuantized(float v, int64_t zeroPoint, QuantizedRange range);

// Where the scale and zero point of each element are: the data as
// [outer, axisDim, inner], element (o, a, i) reading entry
// o * outerStride + (a / axisBlock) * axisStride + (i / innerBlock) * innerStride
// (cuvil_quant_layout).
struct QuantLayout {
  Dim elements, axisDim = 1, inner = 1;
  int64_t axisBlock = 1, innerBlock = 1;
  Dim outerStride = 0, axisStride = 0, innerStride = 0;

  // The entry of element `flat` (static shapes: the references).
  int64_t entry(int64_t flat) const;
  // The kernels' parameter block and task count.
  ParamBlock<cuvil_quant_layout> kernelParams() const;
  Dim tasks() const;
};

// The layout of `scale` (and a zero point of its shape) over `x`, from the
// node's `axis` and `block_size`: a scale with one element is per tensor,
// a 1-D one of x's extent along the axis per axis, one of x's rank with the
// axis' extent divided into blocks of block_size blocked. `what` names the
// scale input in errors.
Expected<QuantLayout> quantLayout(const Node &node, const Shape &x, const Shape &scale,
                                  std::string_view what);
// Whether a zero point's shape and type fit its scale and data.
Status checkZeroPoint(const InferContext &ctx, size_t zeroPoint, size_t scale, DType dtype);

// Quantization attributes every opset of QuantizeLinear and DequantizeLinear
// knows, with their ONNX defaults.
std::vector<AttrSpec> quantAttributes(std::vector<AttrSpec> extra = {});

} // namespace cuvil::ops
