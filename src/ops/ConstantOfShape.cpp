// ConstantOfShape: a tensor of the constant `shape` input filled with the
// one-element `value` attribute (f32 0 by default).
#include "OpSupport.h"

#include <cstring>

namespace cuvil::ops {
namespace {

Tensor fillValue(const Node &node) {
  if (const Attribute *value = node.findAttr("value"))
    return std::get<Tensor>(*value);
  return Tensor::scalarF32(0.0f);
}

Status infer(InferContext &ctx) {
  Expected<std::vector<Dim>> shape = dimsInput(ctx.node(), 0, "the shape");
  CUVIL_TRY(shape.status());
  for (const Dim &dim : *shape)
    if (dim.min() < 0)
      return ctx.error("negative dimension {}", dim);
  Tensor value = fillValue(ctx.node());
  if (value.numElements() != 1)
    return ctx.error("value must have one element");
  ctx.setOutput(0, TensorType{value.dtype(), *shape});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const>, std::span<Tensor> out) {
  Tensor value = fillValue(node);
  size_t size = value.byteSize();
  for (int64_t i = 0, n = out[0].numElements(); i < n; ++i)
    std::memcpy(out[0].mutableBytes() + i * int64_t(size), value.bytes(), size);
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  Tensor value = fillValue(node);
  int64_t bits = 0;
  std::memcpy(&bits, value.bytes(), value.byteSize());
  Expected<const KernelRef *> kernel = fillKernel(value.byteSize());
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(**kernel, {KernelArg::pointer(node.output(0)), KernelArg::constant(bits)},
                        node.output(0)->type().numElements());
}

} // namespace

extern const OpDefinition kConstantOfShapeOp = {
    OpSchema{"ConstantOfShape", 1, 1, 1, 1, {{"value", AttrKind::Tensor}}, infer, eval}, lower};

} // namespace cuvil::ops
