// GatherElements: out[i] = data[i with i[axis] replaced by indices[i]]; the
// output has the indices' shape. Negative indices count from the end; one
// outside [-n, n) is refused, at compile time for constants and by the run
// otherwise. NegativeLogLikelihoodLoss's body picks each target's score
// with it.
#include "ElementsCommon.h"
#include "cuvil/kernels/DataMovement.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  CUVIL_TRY(checkElementsShapes(ctx).status());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), ctx.inputShape(1)});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &data = *in[0], &indices = *in[1];
  int64_t axis = *normalizeAxis(node.getInt("axis"), data.type().rank());
  int64_t size = int64_t(dtypeSize(data.dtype()));
  return forEachElementIndex(data, indices, axis, [&](int64_t position, int64_t source) {
    std::copy_n(data.bytes() + source * size, size, out[0].mutableBytes() + position * size);
  });
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *data = node.input(0), *indices = node.input(1);
  const Shape &dataShape = data->type().shape;
  int64_t axis = *normalizeAxis(node.getInt("axis"), int64_t(dataShape.size()));
  Expected<ElementsSpace> space = elementsSpace(dataShape, indices->type().shape, axis);
  CUVIL_TRY(space.status());
  ParamBlock<cuvil_gather_elements_params> params;
  setElementsSpace(params, *space, dataShape[size_t(axis)]);
  Expected<const KernelRef *> kernel =
      gatherElementsKernel(dtypeSize(data->type().dtype), indices->type().dtype);
  CUVIL_TRY(kernel.status());
  // A task is one row of the last dim.
  Dim rows = numElements(std::span<const Dim>(space->shape).first(CUVIL_MAX_RANK - 1));
  return ctx.callKernel(
      **kernel,
      {KernelArg::pointer(data), KernelArg::pointer(indices), KernelArg::pointer(node.output(0)),
       KernelArg::error(elementsErrorMessages(dataShape[size_t(axis)])), KernelArg::params(params)},
      rows);
}

} // namespace

extern const OpDefinition kGatherElementsOp = {
    OpSchema{"GatherElements",
             2,
             2,
             1,
             1,
             {{"axis", AttrKind::Int, Attribute(int64_t(0))}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
