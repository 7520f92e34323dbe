// AveragePool: the mean of each window; padding counts only with count_include_pad.
#include "PoolCommon.h"

namespace cuvil::ops {
namespace {

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  return evalPool(node, *in[0], out[0], nullptr, PoolKind::Average);
}

Status lower(const Node &node, LoweringContext &ctx) {
  return lowerPool(node, ctx, PoolKind::Average);
}

} // namespace

extern const OpDefinition kAveragePoolOp = {
    OpSchema{"AveragePool", 1, 1, 1, 2,
             windowAttributes({{"ceil_mode", AttrKind::Int}, {"count_include_pad", AttrKind::Int}}),
             inferPool, eval},
    lower};

} // namespace cuvil::ops
