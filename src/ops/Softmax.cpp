// Softmax: y = exp(x - max) / sum(exp(x - max)) along axis (default -1).
#include "SoftmaxCommon.h"

namespace cuvil::ops {
namespace {

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  return evalSoftmax(node, *in[0], out[0], /*log=*/false);
}

Status lower(const Node &node, LoweringContext &ctx) {
  return lowerSoftmax(node, ctx, /*log=*/false);
}

} // namespace

extern const OpDefinition kSoftmaxOp = {
    OpSchema{"Softmax", 1, 1, 1, 1, {{"axis", AttrKind::Int, int64_t(-1)}}, inferSoftmax, eval},
    lower};

} // namespace cuvil::ops
