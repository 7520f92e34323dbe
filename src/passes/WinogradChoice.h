// When a 3x3 convolution runs as Winograd F(4x4, 3x3): the layout pass
// converts it, and assign-precision and fuse-qdq leave it in FP32 (its
// 2.25x fewer multiplies beat the direct integer kernel).
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

} // namespace cuvil
