// Conv: N-C-spatial convolution (1-D, 2-D and 3-D) with groups, strides,
// dilations and explicit or automatic padding; optional bias.
#include "ConvCommon.h"

namespace cuvil::ops {
namespace {

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  return evalConv(node, *in[0], *in[1], in.size() > 2 ? in[2] : nullptr, nullptr, {}, out[0]);
}

Status lower(const Node &node, LoweringContext &ctx) { return lowerConv(node, ctx, nullptr, {}); }

} // namespace

extern const OpDefinition kConvOp = {
    OpSchema{"Conv", 2, 3, 1, 1, convAttributes(), inferConv, eval}, lower};

} // namespace cuvil::ops
