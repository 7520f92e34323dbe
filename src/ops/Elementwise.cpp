#include "Elementwise.h"

#include "cuvil/kernels/Elementwise.h"

namespace cuvil::ops {
namespace {

// Which element types each binary kernel family accepts.
} // namespace

Status inferFloatElementwise(InferContext &ctx) {
  if (!isFloat(ctx.inputDType(0)))
    return ctx.error("expects a float tensor, got {}", dtypeName(ctx.inputDType(0)));
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Status inferNumericElementwise(InferContext &ctx) {
  if (ctx.inputDType(0) == DType::Bool)
    return ctx.error("expects a number tensor, got bool");
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Expected<std::vector<float>> unaryParams(const Node &node, const OpSchema &schema) {
  std::optional<std::vector<float>> params = elementwiseParams(node, schema);
  if (!params)
    return Status::error("its parameters must be compile-time constants");
  return *params;
}

OpDefinition unaryDefinition(const UnaryTraits &traits, InferFn infer, EvalFn eval, LowerFn lower) {
  ElementwiseFacts facts;
  facts.arity = ElementwiseFacts::Arity::Unary;
  facts.finiteAtZero = traits.finiteAtZero;
  facts.params = traits.readParams;
  facts.paramCount = traits.readParams ? traits.paramCount : traits.params.size();
  std::vector<AttrSpec> attributes = traits.extraAttributes;
  for (const FloatParam &param : traits.params) {
    facts.paramAttributes.push_back(param.name);
    AttrSpec &spec = attributes.emplace_back(AttrSpec{param.name, AttrKind::Float});
    spec.defaultValue.emplace(param.defaultValue);
  }
  OpSchema schema{traits.name, 1, traits.maxInputs, 1, 1, std::move(attributes), infer, eval};
  schema.elementwise = std::move(facts);
  return {std::move(schema), lower,
          ElementwiseKernel{traits.kernel, traits.kernelFor, traits.reference, nullptr}};
}

cuvil_unary unaryKernelOf(const OpDefinition &op, std::span<const float> params) {
  if (op.elementwise.kernelFor)
    return op.elementwise.kernelFor(params);
  return {op.elementwise.op, params.size() > 0 ? params[0] : 0.0f,
          params.size() > 1 ? params[1] : 0.0f};
}

Status lowerUnaryKernel(const Node &node, LoweringContext &ctx, const cuvil_unary &f) {
  DType dtype = node.input(0)->type().dtype;
  if (dtype != DType::F32 && dtype != DType::F64)
    return Status::error(fmt::format("element type {} is not supported", dtypeName(dtype)));
  return ctx.callKernel(
      dtype == DType::F32 ? kUnaryKernel : kUnaryF64Kernel,
      {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.output(0)), KernelArg::params(f)},
      node.output(0)->type().numElements());
}

OpDefinition binaryDefinition(const BinaryTraits &traits, InferFn infer, EvalFn eval,
                              LowerFn lower) {
  OpSchema schema{traits.name, 2, 2, 1, 1, {}, infer, eval};
  ElementwiseKernel kernel;
  if (traits.fuses) {
    ElementwiseFacts facts;
    facts.arity = ElementwiseFacts::Arity::Binary;
    facts.finiteAtZero = traits.finiteAtZero;
    facts.constantPadding = traits.constantPadding;
    schema.elementwise = std::move(facts);
    kernel.op = traits.code;
    kernel.binaryReference = traits.floatReference;
  }
  return {std::move(schema), lower, kernel};
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

void propagateBinaryDims(InferContext &ctx,
                         std::optional<Dim> (*dimReference)(const Dim &, const Dim &)) {
  if (!dimReference)
    return;
  std::optional<std::vector<Dim>> a = inputDimValues(ctx, 0), b = inputDimValues(ctx, 1);
  if (!a || !b || (!ctx.inputDims(0) && !ctx.inputDims(1)) || !carriesDimValues(ctx, 0) ||
      ctx.inputShape(0).size() > 1 || ctx.inputShape(1).size() > 1)
    return;
  // 0-D or 1-D operands: one of them of a single element broadcasts.
  size_t n = std::max(a->size(), b->size());
  if ((a->size() != n && a->size() != 1) || (b->size() != n && b->size() != 1))
    return;
  std::vector<Dim> result;
  for (size_t i = 0; i < n; ++i) {
    std::optional<Dim> value =
        dimReference((*a)[a->size() == 1 ? 0 : i], (*b)[b->size() == 1 ? 0 : i]);
    if (!value)
      return;
    result.push_back(*value);
  }
  ctx.setOutputDims(0, std::move(result));
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
  if ((kind == BinaryKind::Logical && dtype != DType::Bool) ||
      (dtype == DType::String && code != CUVIL_BINARY_EQUAL)) // strings: Equal alone
    return Status::error(fmt::format("element type {} is not supported", dtypeName(dtype)));
  const Shape &out = node.output(0)->type().shape;
  Expected<StridedSpace> space =
      makeStridedSpace(out, {broadcastStrides(node.input(0)->type().shape, out),
                             broadcastStrides(node.input(1)->type().shape, out)});
  CUVIL_TRY(space.status());
  // The kernel table says which element types are supported.
  Expected<const KernelRef *> kernel =
      kind == BinaryKind::Arithmetic ? binaryKernel(dtype) : compareKernel(dtype);
  if (!kernel)
    return Status::error(fmt::format("element type {} is not supported", dtypeName(dtype)));
  ParamBlock<cuvil_binary_params> params;
  params->op = code;
  space->setShape(params, params->shape);
  space->setStrides(params, 0, params->a_strides);
  space->setStrides(params, 1, params->b_strides);
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
                         KernelArg::pointer(node.output(0)), KernelArg::params(params)},
                        space->rows());
}

} // namespace cuvil::ops
