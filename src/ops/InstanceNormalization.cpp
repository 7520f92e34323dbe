// InstanceNormalization: each (n, c) plane of x [N, C, D1, ...] normalised
// over its spatial elements, then scaled and shifted per channel:
//   y = (x - mean) / sqrt(var + epsilon) * scale[c] + B[c]
// Canonicalize rewrites it to LayerNormalization over axes [2, rank) (unit
// scale), a Mul by scale and an Add of B, both as [C, 1, ...]; the reference
// here serves constant folding and the rewrite's test.
#include "OpSupport.h"

#include <cmath>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  if (x.size() < 3)
    return ctx.error("expects an input [N, C, D1, ...] of rank 3 or more, got [{}]",
                     shapeToString(x));
  for (size_t i = 1; i < 3; ++i) {
    const Shape &p = ctx.inputShape(i);
    if (p.size() != 1 || p[0] != x[1] || ctx.inputDType(i) != ctx.inputDType(0))
      return ctx.error("{} must be {}[{}] (one per channel), is {}[{}]", i == 1 ? "scale" : "B",
                       dtypeName(ctx.inputDType(0)), x[1], dtypeName(ctx.inputDType(i)),
                       shapeToString(p));
  }
  ctx.setOutput(0, ctx.node().input(0)->type());
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0], &scale = *in[1], &bias = *in[2];
  int64_t channels = x.dims()[1], planes = x.dims()[0] * channels;
  int64_t size = x.numElements() / std::max<int64_t>(planes, 1);
  double epsilon = node.getFloat("epsilon");
  for (int64_t p = 0; p < planes; ++p) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < size; ++i)
      mean += x.getDouble(p * size + i);
    mean /= double(size);
    for (int64_t i = 0; i < size; ++i)
      var += (x.getDouble(p * size + i) - mean) * (x.getDouble(p * size + i) - mean);
    double invStd = 1.0 / std::sqrt(var / double(size) + epsilon);
    int64_t c = p % channels;
    for (int64_t i = 0; i < size; ++i)
      out[0].setDouble(p * size + i,
                       (x.getDouble(p * size + i) - mean) * invStd * scale.getDouble(c) +
                           bias.getDouble(c));
  }
  return Status::success();
}

} // namespace

extern const OpDefinition kInstanceNormalizationOp = {
    OpSchema{
        "InstanceNormalization", 3, 3, 1, 1, {{"epsilon", AttrKind::Float, 1e-5f}}, infer, eval},
    nullptr};

} // namespace cuvil::ops
