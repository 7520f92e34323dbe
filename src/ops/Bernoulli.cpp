// Bernoulli: y[i] = 1 with probability input[i] (a float in [0, 1]), else
// 0, of type `dtype` (default the input's), drawn anew each run. Its ONNX
// function body draws Greater(uniform, p), 1 with probability 1 - p, unlike
// the op's definition, ONNX Runtime and the backend suite's data, so the op
// is native: canonicalize rewrites it into Less(RandomUniformLike(p), p)
// cast to `dtype` (CanonicalizeRandom.cpp).
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  if (!isFloat(ctx.inputDType(0)))
    return ctx.error("expects float probabilities, got {}", dtypeName(ctx.inputDType(0)));
  DType dtype = ctx.inputDType(0);
  if (ctx.node().hasAttr("dtype")) {
    std::optional<DType> given = dtypeFromOnnxCode(int(ctx.node().getInt("dtype")));
    if (!given)
      return ctx.error("dtype {} is not a tensor type", ctx.node().getInt("dtype"));
    dtype = *given;
  }
  ctx.setOutput(0, TensorType{dtype, ctx.inputShape(0)});
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites Bernoulli into a uniform draw");
}

} // namespace

extern const OpDefinition kBernoulliOp = {
    OpSchema{"Bernoulli",
             1,
             1,
             1,
             1,
             {{"dtype", AttrKind::Int}, {"seed", AttrKind::Float}},
             infer,
             /*reference: never folded*/ nullptr},
    lower};

} // namespace cuvil::ops
