// Cast: converts elements to the type `to` (an ONNX TensorProto code).
// Float to integer truncates toward zero; anything to bool is `!= 0`.
// Numbers to and from strings take the text forms of ONNX Runtime
// (StringServices.h's formatNumber and parseNumber). Dims
// an integer carries (Value::dimValues) stay with it, to integers and to
// floats that hold them exactly (float arithmetic does not carry them).
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Expected<DType> targetType(const Node &node) {
  std::optional<DType> to = dtypeFromOnnxCode(int(node.getInt("to", 0)));
  if (!to)
    return Status::error(fmt::format("cannot cast to ONNX type {}", node.getInt("to", 0)));
  return *to;
}

// Dims cast to a float type stay known where the type holds every value
// exactly (a window size cast for a float Range): up to 2^(mantissa + 1).
void forwardExactDimValues(InferContext &ctx, DType to) {
  static constexpr std::pair<DType, int> kExactBits[] = {
      {DType::F64, 53}, {DType::F32, 24}, {DType::F16, 11}, {DType::BF16, 8}};
  const std::vector<Dim> *dims = ctx.inputDims(0);
  const Value *result = ctx.node().output(0);
  if (!dims || !result->type().isStatic() || int64_t(dims->size()) > kMaxDimValues)
    return;
  for (const auto &[dtype, bits] : kExactBits)
    if (dtype == to) {
      int64_t exact = int64_t(1) << bits;
      for (const Dim &dim : *dims)
        if (dim.min() < -exact || dim.max() > exact)
          return;
      ctx.setOutputDims(0, *dims);
    }
}

Status infer(InferContext &ctx) {
  Expected<DType> to = targetType(ctx.node());
  CUVIL_TRY(to.status());
  ctx.setOutput(0, TensorType{*to, ctx.inputShape(0)});
  if (isSignedInt(*to))
    forwardDimValues(ctx);
  else if (isFloat(*to))
    forwardExactDimValues(ctx, *to);
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  out[0] = in[0]->castTo(out[0].dtype());
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  DType from = node.input(0)->type().dtype, to = node.output(0)->type().dtype;
  if (from == to)
    return lowerViewOrCopy(node, ctx);
  if (from == DType::String || to == DType::String) {
    Expected<const KernelRef *> kernel = stringCastKernel(from, to);
    CUVIL_TRY(kernel.status());
    std::string check = to == DType::String ? "out of memory for {} bytes of strings"
                                            : "element {} is not a number";
    return ctx.callKernel(**kernel,
                          {KernelArg::stringServices(), KernelArg::pointer(node.input(0)),
                           KernelArg::pointer(node.output(0)),
                           KernelArg::constant(node.output(0)->type().numElements()),
                           KernelArg::error({check})},
                          1);
  }
  Expected<const KernelRef *> kernel = castKernel(from, to);
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.output(0))},
                        node.output(0)->type().numElements());
}

} // namespace

extern const OpDefinition kCastOp = {
    OpSchema{"Cast",
             1,
             1,
             1,
             1,
             {{"to", AttrKind::Int, std::nullopt, /*required=*/true},
              {"saturate", AttrKind::Int},
              {"round_mode", AttrKind::String}}, // opset 24: for float8e8m0 only
             infer,
             eval},
    lower};

} // namespace cuvil::ops
