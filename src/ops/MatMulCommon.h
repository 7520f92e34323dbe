// Shape rule, reference and lowering shared by MatMul and cuvil.FusedMatMul:
// numpy matmul semantics (1-D operands promoted, batch dims broadcast).
#pragma once

#include "FusedActivation.h"

namespace cuvil::ops {

struct MatMulGeometry {
  Shape outShape;
  int64_t M = 0, N = 0, K = 0;
  Shape batch;                        // broadcast batch dims
  std::vector<int64_t> aBatchStrides; // elements, 0 where broadcast
  std::vector<int64_t> bBatchStrides;
};

Expected<MatMulGeometry> matMulGeometry(const Shape &a, const Shape &b);
Status inferMatMul(InferContext &ctx);
// y = act(a . b + bias), bias of length N or null.
Status evalMatMul(const Tensor &a, const Tensor &b, const Tensor *bias,
                  const FusedActivation &activation, Tensor &y);
Status lowerMatMul(const Node &node, LoweringContext &ctx, const Value *bias,
                   const FusedActivation &activation);

} // namespace cuvil::ops
