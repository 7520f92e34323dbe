// Shared by ConvInteger and QLinearConv: Conv's geometry (ConvCommon) over
// u8/i8 data and weights less their zero points, accumulated in i32
// (wrapping); the image's zero point (and scale) per tensor, the weights'
// per tensor or per output channel.
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

// The kernel's parameters, task count and multiply-adds (as flops).
struct IntegerConvCall {
  ParamBlock<cuvil_iconv_params> params;
  Dim tasks, flops;
};
Expected<IntegerConvCall> integerConvCall(const Node &node, const LoweringContext &ctx,
                                          const IntegerConvInputs &inputs);

} // namespace cuvil::ops
