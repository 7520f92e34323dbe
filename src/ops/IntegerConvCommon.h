// Shared by ConvInteger, QLinearConv and cuvil.FusedQLinearConv: Conv's
// geometry (ConvCommon) over u8/i8 data and weights less their zero points,
// accumulated in i32 (wrapping); the image's zero point (and scale) per
// tensor, the weights' per tensor or per output channel.
#pragma once

#include "ConvCommon.h"
#include "cuvil/kernels/IntegerConv.h"

#include <functional>

namespace cuvil::ops {

// Where an integer convolution's operands are among the node's inputs.
struct IntegerConvInputs {
  size_t x, w;
  size_t xZero, wZero; // optional for ConvInteger
  std::optional<size_t> xScale, wScale;
};

// Checks the operands and their zero points and scales, and types result 0
// as `result` with the convolution's shape.
Status inferIntegerConv(InferContext &ctx, const IntegerConvInputs &inputs, DType result);

// The reference: calls visit(flat, acc, m) for each output element, its
// accumulator and output channel.
using IntegerConvVisitor = std::function<void(int64_t, int32_t, int64_t)>;
Status evalIntegerConv(const Node &node, const IntegerConvInputs &inputs,
                       std::span<const Tensor *const> in, const IntegerConvVisitor &visit);

// QLinearConv's operands (x, x_scale, x_zero, w, w_scale, w_zero, y_scale,
// y_zero, optional bias), which cuvil.FusedQLinearConv begins with.
inline constexpr IntegerConvInputs kRequantizedConvInputs{0, 3, 2, 5, 1, 4};
inline constexpr size_t kRequantizedOutScale = 6, kRequantizedOutZero = 7, kRequantizedBias = 8;

// Checks QLinearConv's operands and types result 0 as `result` (QLinearConv:
// y_zero_point's type) with the convolution's shape.
Status inferRequantizedConv(InferContext &ctx, DType result);

// The reference: calls visit(flat, q, m) with each output element's
// requantized value q (of y_zero_point's type) and output channel:
//   q = saturate(round_half_even(float(acc + bias) * (x_scale * w_scale / y_scale)) + y_zero)
// accumulating in i32 and scaling in f32 as ONNX Runtime does.
Status evalRequantizedConv(const Node &node, std::span<const Tensor *const> in,
                           const std::function<void(int64_t, int64_t, int64_t)> &visit);

// The kernel's parameters, task count and multiply-adds (as flops,
// integerWorkFlops).
struct IntegerConvCall {
  ParamBlock<cuvil_iconv_params> params;
  Dim tasks, flops;
};
Expected<IntegerConvCall> integerConvCall(const Node &node, const LoweringContext &ctx,
                                          const IntegerConvInputs &inputs);

} // namespace cuvil::ops
