// BitwiseAnd, BitwiseOr, BitwiseXor (opset 18): a op b on integers of one
// type, with numpy broadcasting; one shape rule, reference and lowering,
// the op read from the node. Debian's ONNX 1.12 predates them.
#pragma once

#include "Elementwise.h"

namespace cuvil::ops {

Status inferBitwise(InferContext &ctx);
Status evalBitwise(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out);
Status lowerBitwise(const Node &node, LoweringContext &ctx);

} // namespace cuvil::ops
