#include "Elementwise.h"

namespace cuvil::ops {
namespace {

// Which element types each binary kernel family accepts.
bool binaryKernelSupports(BinaryKind kind, DType dtype) {
  switch (kind) {
  case BinaryKind::Arithmetic:
    return dtype == DType::F32 || dtype == DType::I64 || dtype == DType::I32;
  case BinaryKind::Comparison:
    return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::I64 ||
           dtype == DType::I32 || dtype == DType::U8 || dtype == DType::Bool;
  case BinaryKind::Logical:
    return dtype == DType::Bool;
  }
  return false;
}

} // namespace

Status inferFloatElementwise(InferContext &ctx) {
  if (!isFloat(ctx.inputDType(0)))
    return ctx.error("expects a float tensor, got {}", dtypeName(ctx.inputDType(0)));
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Status lowerUnary(const Node &node, LoweringContext &ctx, cuvil_unary_op code, float alpha,
                  float beta) {
  DType dtype = node.input(0)->type().dtype;
  if (dtype != DType::F32)
    return Status::error(fmt::format("element type {} is not supported", dtypeName(dtype)));
  ctx.callKernel("cuvil_unary_f32",
                 {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.output(0)),
                  KernelArg::constant(code), KernelArg::constantF32(alpha),
                  KernelArg::constantF32(beta)},
                 node.output(0)->type().numElements());
  return Status::success();
}

Status inferBinary(InferContext &ctx, BinaryKind kind) {
  if (ctx.inputDType(0) != ctx.inputDType(1))
    return ctx.error("input types differ: {} and {}", dtypeName(ctx.inputDType(0)),
                     dtypeName(ctx.inputDType(1)));
  if (kind == BinaryKind::Logical && ctx.inputDType(0) != DType::Bool)
    return ctx.error("expects bool inputs, got {}", dtypeName(ctx.inputDType(0)));
  Expected<Shape> shape = broadcastShapes(ctx.inputShape(0), ctx.inputShape(1));
  CUVIL_TRY(shape.status());
  DType result = kind == BinaryKind::Arithmetic ? ctx.inputDType(0) : DType::Bool;
  ctx.setOutput(0, TensorType{result, *shape});
  return Status::success();
}

Status evalBinary(const BinaryTraits &traits, std::span<const Tensor *const> in,
                  std::span<Tensor> out) {
  const Tensor &a = *in[0], &b = *in[1];
  bool floating = isFloat(a.dtype());
  forEachBroadcast(out[0].shape(), a.shape(), b.shape(), [&](int64_t i, int64_t ia, int64_t ib) {
    if (floating)
      out[0].setDouble(i, traits.floatReference(a.getDouble(ia), b.getDouble(ib)));
    else
      out[0].setInt(i, traits.intReference(a.getInt(ia), b.getInt(ib)));
  });
  return Status::success();
}

Status lowerBinary(const Node &node, LoweringContext &ctx, cuvil_binary_op code, BinaryKind kind) {
  DType dtype = node.input(0)->type().dtype;
  if (!binaryKernelSupports(kind, dtype))
    return Status::error(fmt::format("element type {} is not supported", dtypeName(dtype)));
  const Shape &out = node.output(0)->type().shape;
  Expected<StridedSpace> space =
      makeStridedSpace(out, {broadcastStrides(node.input(0)->type().shape, out),
                             broadcastStrides(node.input(1)->type().shape, out)});
  CUVIL_TRY(space.status());
  // Comparisons and logical ops share one kernel family; bool is stored as u8.
  std::string suffix = kernelTypeSuffix(dtype == DType::Bool ? DType::U8 : dtype);
  std::string kernel =
      kind == BinaryKind::Arithmetic ? "cuvil_binary_" + suffix : "cuvil_compare_" + suffix;
  ctx.callKernel(kernel,
                 {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
                  KernelArg::pointer(node.output(0)), KernelArg::constant(code),
                  KernelArg::constantArray(space->shape),
                  KernelArg::constantArray(space->strides[0]),
                  KernelArg::constantArray(space->strides[1])},
                 space->rows());
  return Status::success();
}

} // namespace cuvil::ops
