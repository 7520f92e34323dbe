// cuvil.FFTTwiddles() -> the table of roots and twiddle factors the FFT
// kernel follows for transforms of `length` of a `real_signal` or a complex
// one, `inverse` or not, in element type `to` (an ONNX type code): per
// radix stage, the radix's roots, then the stage's factors, and those that
// unpack a real signal (FourierCommon.h). canonicalize makes one per
// cuvil.FFT and folds it at once, so the table is computed at compile
// time, in double.
#include "FourierCommon.h"

namespace cuvil::ops {
namespace {

FftPlan plan(const Node &node) {
  return fftPlan(node.getInt("length", 0), node.getInt("real_signal", 0) != 0);
}

Status infer(InferContext &ctx) {
  std::optional<DType> to = dtypeFromOnnxCode(int(ctx.node().getInt("to", 0)));
  int64_t length = ctx.node().getInt("length", 0);
  if (!to || (*to != DType::F32 && *to != DType::F64))
    return ctx.error("twiddles are f32 or f64, not ONNX type {}", ctx.node().getInt("to", 0));
  if (length < 1)
    return ctx.error("the transform length must be positive, is {}", length);
  ctx.setOutput(0, TensorType{*to, {plan(ctx.node()).twiddleCount()}});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const>, std::span<Tensor> out) {
  out[0] = plan(node).twiddles(node.getInt("inverse", 0) != 0, out[0].dtype());
  return Status::success();
}

std::vector<AttrSpec> attributes() {
  std::vector<AttrSpec> specs;
  for (std::string_view name : {"length", "real_signal", "inverse", "to"})
    specs.push_back({name, AttrKind::Int, std::nullopt, /*required=*/true});
  return specs;
}

} // namespace

extern const OpDefinition kFFTTwiddlesOp = {
    OpSchema{"cuvil.FFTTwiddles", 0, 0, 1, 1, attributes(), infer, eval}, lowerCompileTimeOnly};

} // namespace cuvil::ops
