// MatMul: numpy matrix product; 1-D operands are promoted to matrices and
// batch dimensions broadcast.
#include "MatMulCommon.h"

namespace cuvil::ops {
namespace {

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  return evalMatMul(node, in, {}, out[0]);
}

Status lower(const Node &node, LoweringContext &ctx) { return lowerMatMul(node, ctx, {}); }

} // namespace

extern const OpDefinition kMatMulOp = {OpSchema{"MatMul", 2, 2, 1, 1, {}, inferMatMul, eval},
                                       lower};

} // namespace cuvil::ops
