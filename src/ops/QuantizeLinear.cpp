// QuantizeLinear: y = saturate(round_half_even(x / y_scale) + y_zero_point)
// per tensor, per `axis`, or in blocks of `block_size` along it (opset 21),
// dividing in f32. y has the zero point's type, else `output_dtype`'s
// (opset 21), else u8: u8, i8, u16 or i16 (the 4-bit and float 8 types
// Cuvil has no tensors of). `saturate` only concerns float 8 results.
#include "Kernels.h"
#include "QuantizeCommon.h"

namespace cuvil::ops {
namespace {

Expected<DType> resultType(const InferContext &ctx) {
  int64_t code = ctx.node().getInt("output_dtype");
  std::optional<DType> requested = code == 0 ? std::nullopt : dtypeFromOnnxCode(int(code));
  if (code != 0 && !requested)
    return ctx.error("output_dtype {} is not a type Cuvil has", code);
  if (ctx.hasInput(2) && requested && *requested != ctx.inputDType(2))
    return ctx.error("output_dtype is {}, but the zero point is {}", dtypeName(*requested),
                     dtypeName(ctx.inputDType(2)));
  DType type = ctx.hasInput(2) ? ctx.inputDType(2) : requested.value_or(DType::U8);
  if (!quantizedRange(type))
    return ctx.error("cannot quantize to {}: u8, i8, u16 and i16 are supported", dtypeName(type));
  return type;
}

Status infer(InferContext &ctx) {
  if (ctx.inputDType(0) != DType::F32 || ctx.inputDType(1) != DType::F32)
    return ctx.error("x is {} and y_scale {}: f32 is supported", dtypeName(ctx.inputDType(0)),
                     dtypeName(ctx.inputDType(1)));
  int64_t precision = ctx.node().getInt("precision");
  if (precision != 0 && precision != dtypeOnnxCode(DType::F32))
    return ctx.error("precision {} is not supported: the division is in f32", precision);
  Expected<DType> type = resultType(ctx);
  CUVIL_TRY(type.status());
  CUVIL_TRY(quantLayout(ctx.node(), ctx.inputShape(0), ctx.inputShape(1), "y_scale").status());
  CUVIL_TRY(checkZeroPoint(ctx, 2, 1, *type));
  ctx.setOutput(0, TensorType{*type, ctx.inputShape(0)});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0], &scale = *in[1];
  const Tensor *zeroPoint = in.size() > 2 ? in[2] : nullptr;
  Expected<QuantLayout> layout = quantLayout(node, x.shape(), scale.shape(), "y_scale");
  CUVIL_TRY(layout.status());
  QuantizedRange range = *quantizedRange(out[0].dtype());
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    int64_t entry = layout->entry(i);
    float v = float(x.getDouble(i)) / float(scale.getDouble(entry));
    out[0].setInt(i, roundToQuantized(v, zeroPoint ? zeroPoint->getInt(entry) : 0, range));
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  Expected<QuantLayout> layout =
      quantLayout(node, x->type().shape, node.input(1)->type().shape, "y_scale");
  CUVIL_TRY(layout.status());
  Expected<const KernelRef *> kernel = quantizeKernel(node.output(0)->type().dtype);
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(x), KernelArg::pointer(node.input(1)),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::pointer(node.output(0)),
                         KernelArg::params(layout->kernelParams())},
                        layout->tasks());
}

} // namespace

extern const OpDefinition kQuantizeLinearOp = {
    OpSchema{"QuantizeLinear", 2, 3, 1, 1,
             quantAttributes({{"saturate", AttrKind::Int, Attribute(int64_t(1))},
                              {"precision", AttrKind::Int, Attribute(int64_t(0))}}),
             infer, eval},
    lower};

} // namespace cuvil::ops
