// Multinomial: input [batch, classes] of unnormalised log probabilities;
// result [batch, sample_size] of class indices (`dtype` int32, the default,
// or int64), each drawn from the row's softmax, anew each run
// (RandomCommon.h). Computes in f32 (promote-half widens f16 input).
#include "RandomCommon.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &shape = ctx.inputShape(0);
  if (shape.size() != 2)
    return ctx.error("expects a 2-D input [batch, classes], got rank {}", shape.size());
  if (!isFloat(ctx.inputDType(0)))
    return ctx.error("expects float input, got {}", dtypeName(ctx.inputDType(0)));
  std::optional<DType> dtype = dtypeFromOnnxCode(int(ctx.node().getInt("dtype")));
  if (!dtype || (*dtype != DType::I32 && *dtype != DType::I64))
    return ctx.error("dtype must be int32 or int64, not {}", ctx.node().getInt("dtype"));
  int64_t samples = ctx.node().getInt("sample_size");
  if (samples < 1)
    return ctx.error("sample_size must be at least 1, not {}", samples);
  ctx.setOutput(0, TensorType{*dtype, {shape[0], samples}});
  return Status::success();
}

// A task per batch row.
Status lower(const Node &node, LoweringContext &ctx) {
  const Value *logits = node.input(0), *y = node.output(0);
  if (logits->type().dtype != DType::F32)
    return Status::error("internal error: canonicalize casts Multinomial's input to f32");
  Expected<const KernelRef *> kernel = multinomialKernel(y->type().dtype);
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_multinomial_params> params;
  params.set(params->classes, logits->type().shape[1]);
  params->samples = node.getInt("sample_size");
  params->random = randomParams(node, CUVIL_RANDOM_UNIFORM, 0.0f, 1.0f);
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(logits), KernelArg::pointer(y),
                         KernelArg::randomState(), KernelArg::params(params)},
                        logits->type().shape[0]);
}

} // namespace

extern const OpDefinition kMultinomialOp = {OpSchema{"Multinomial",
                                                     1,
                                                     1,
                                                     1,
                                                     1,
                                                     {{"dtype", AttrKind::Int, int64_t(6)},
                                                      {"sample_size", AttrKind::Int, int64_t(1)},
                                                      {"seed", AttrKind::Float}},
                                                     infer,
                                                     /*reference: never folded*/ nullptr},
                                            lower};

} // namespace cuvil::ops
