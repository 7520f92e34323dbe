// ScatterElements: out = data, then out[i with i[axis] replaced by
// indices[i]] = updates[i] for every position i of indices (or combined by
// `reduction`: add, mul, max, min), in row-major order, so that the last
// of duplicate indices wins. Negative indices count from the end; one
// outside [-n, n) is refused, as ONNX Runtime does. The deprecated Scatter
// is this op (OpsetAdapters).
#include "ElementsCommon.h"
#include "ScatterCommon.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  CUVIL_TRY(scatterReduction(ctx.node()).status());
  CUVIL_TRY(checkElementsShapes(ctx).status());
  if (ctx.inputShape(2) != ctx.inputShape(1))
    return ctx.error("updates have shape {}, indices {}: they must be equal",
                     ctx.inputType(2).str(), ctx.inputType(1).str());
  if (ctx.inputDType(2) != ctx.inputDType(0))
    return ctx.error("updates are {}, data {}: they must be alike", dtypeName(ctx.inputDType(2)),
                     dtypeName(ctx.inputDType(0)));
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &data = *in[0], &indices = *in[1], &updates = *in[2];
  int64_t axis = *normalizeAxis(node.getInt("axis"), data.type().rank());
  cuvil_scatter_reduction reduction = *scatterReduction(node);
  out[0] = data;
  return forEachElementIndex(data, indices, axis, [&](int64_t position, int64_t target) {
    combineElement(reduction, out[0], target, updates, position);
  });
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *data = node.input(0), *indices = node.input(1);
  const Shape &dataShape = data->type().shape;
  int64_t axis = *normalizeAxis(node.getInt("axis"), int64_t(dataShape.size()));
  Expected<ElementsSpace> space = elementsSpace(dataShape, indices->type().shape, axis);
  CUVIL_TRY(space.status());
  ParamBlock<cuvil_scatter_elements_params> params;
  setElementsSpace(params, *space, dataShape[size_t(axis)]);
  params->reduction = *scatterReduction(node);
  Expected<const KernelRef *> kernel =
      scatterElementsKernel(data->type().dtype, indices->type().dtype);
  CUVIL_TRY(kernel.status());
  CUVIL_TRY(copyDataToOutput(node, ctx));
  // A task is one fiber: every coordinate but the axis.
  Dim fibers = 1;
  for (size_t d = 0; d < CUVIL_MAX_RANK; ++d)
    fibers = int64_t(d) == space->axis ? fibers : fibers * space->shape[d];
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(node.output(0)), KernelArg::pointer(indices),
                         KernelArg::pointer(node.input(2)),
                         KernelArg::error(elementsErrorMessages(dataShape[size_t(axis)])),
                         KernelArg::params(params)},
                        fibers);
}

} // namespace

extern const OpDefinition kScatterElementsOp = {
    OpSchema{"ScatterElements",
             3,
             3,
             1,
             1,
             {{"axis", AttrKind::Int, Attribute(int64_t(0))},
              {"reduction", AttrKind::String, Attribute(std::string("none"))}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
