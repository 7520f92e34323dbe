// IsInf: bool, true where x is +inf (detect_positive) or -inf
// (detect_negative). canonicalize rewrites it into Equal(Abs(x), inf),
// Equal(x, +inf) or Equal(x, -inf), or false when it detects neither.
#include "OpSupport.h"

#include <cmath>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  if (!isFloat(ctx.inputDType(0)))
    return ctx.error("expects a float tensor, got {}", dtypeName(ctx.inputDType(0)));
  ctx.setOutput(0, TensorType{DType::Bool, ctx.inputShape(0)});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  bool positive = node.getInt("detect_positive") != 0,
       negative = node.getInt("detect_negative") != 0;
  for (int64_t i = 0, n = out[0].numElements(); i < n; ++i) {
    double v = in[0]->getDouble(i);
    out[0].setInt(i, std::isinf(v) && (v > 0 ? positive : negative));
  }
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites every IsInf");
}

} // namespace

extern const OpDefinition kIsInfOp = {
    OpSchema{"IsInf",
             1,
             1,
             1,
             1,
             {{"detect_negative", AttrKind::Int, Attribute(int64_t(1))},
              {"detect_positive", AttrKind::Int, Attribute(int64_t(1))}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
