// MaxPool: the maximum of each window (padding never wins); the optional
// Indices result (opset 8 on) is the flat index into x of each window's
// first largest element, row-major or with storage_order 1 column-major
// within its plane.
#include "PoolCommon.h"

namespace cuvil::ops {
namespace {

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  return evalPool(node, *in[0], out[0], out.size() > 1 ? &out[1] : nullptr, PoolKind::Max);
}

Status lower(const Node &node, LoweringContext &ctx) { return lowerPool(node, ctx, PoolKind::Max); }

} // namespace

extern const OpDefinition kMaxPoolOp = {
    OpSchema{"MaxPool", 1, 1, 1, 2,
             windowAttributes({{"ceil_mode", AttrKind::Int}, {"storage_order", AttrKind::Int}}),
             inferPool, eval},
    lower};

} // namespace cuvil::ops
