// When a 3x3 convolution runs as Winograd F(4x4, 3x3): the layout pass
// converts it, and assign-precision and fuse-qdq leave it in FP32 where
// its fewer multiplies beat the direct integer kernel (winogradOverInteger).
#pragma once

#include "cuvil/ir/WindowGeometry.h"
#include "cuvil/passes/Pass.h"

#include <span>

namespace cuvil {

// `ws` the weights' dims [M, C, KH, KW].
bool winogradPays(const PassContext &context, const WindowGeometry &g, std::span<const int64_t> ws);

// Whether the Conv node, whose weights have dims `ws`, runs as Winograd
// (false unless 2-D and ungrouped: grouped and depthwise ones keep their
// direct kernels).
bool convRunsAsWinograd(const Node &conv, std::span<const int64_t> ws, const PassContext &context);

// Whether the Conv node stays FP32 to run as Winograd rather than on the
// integer kernels: where the CPU multiplies bytes without VNNI.
bool winogradOverInteger(const Node &conv, std::span<const int64_t> ws, const PassContext &context);

} // namespace cuvil
