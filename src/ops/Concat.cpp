// Concat: joins the inputs along `axis`. Each input is a strided copy into
// its slab of the output, unless plan-memory placed it there in the first
// place.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &first = ctx.inputShape(0);
  Expected<int64_t> axis = normalizeAxis(ctx.node().getInt("axis", 0), int64_t(first.size()));
  CUVIL_TRY(axis.status());
  Shape out = first;
  out[size_t(*axis)] = 0;
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    const Shape &shape = ctx.inputShape(i);
    if (ctx.inputDType(i) != ctx.inputDType(0) || shape.size() != first.size())
      return ctx.error("input {} is {}, incompatible with input 0 ({})", i, ctx.inputType(i).str(),
                       ctx.inputType(0).str());
    for (size_t d = 0; d < shape.size(); ++d)
      if (d != size_t(*axis) && shape[d] != first[d])
        return ctx.error("input {} has shape [{}], input 0 [{}]", i, shapeToString(shape),
                         shapeToString(first));
    out[size_t(*axis)] += shape[size_t(*axis)];
  }
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  // Shapes assembled from dims and constants.
  if (first.size() == 1 && carriesDimValues(ctx, 0)) {
    std::vector<Dim> joined;
    bool symbolic = false;
    for (size_t i = 0; i < ctx.numInputs(); ++i) {
      std::optional<std::vector<Dim>> part = inputDimValues(ctx, i);
      if (!part)
        return Status::success();
      symbolic |= ctx.inputDims(i) != nullptr;
      joined.insert(joined.end(), part->begin(), part->end());
    }
    if (symbolic)
      ctx.setOutputDims(0, std::move(joined));
  }
  return Status::success();
}

// Calls `copy(input, elementOffsetInOutput)` for each input.
template <typename Copy> void forEachSlab(const Node &node, Copy copy) {
  const Shape &out = node.output(0)->type().shape;
  int64_t axis = *normalizeAxis(node.getInt("axis", 0), int64_t(out.size()));
  Dim stride = contiguousStrides(out)[size_t(axis)];
  Dim position = 0;
  for (size_t i = 0; i < node.numInputs(); ++i) {
    copy(i, position * stride);
    position += node.input(i)->type().shape[size_t(axis)];
  }
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  std::vector<int64_t> outStrides = staticStrides(out[0].shape());
  forEachSlab(node, [&](size_t i, const Dim &offset) {
    copyStrided(*in[i], 0, staticStrides(in[i]->shape()), out[0], offset.constant(), outStrides,
                in[i]->dims());
  });
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *result = node.output(0);
  std::vector<Dim> outStrides = contiguousStrides(result->type().shape);
  int64_t elementSize = int64_t(dtypeSize(result->type().dtype));
  Status status;
  forEachSlab(node, [&](size_t i, const Dim &offset) {
    const Shape &shape = node.input(i)->type().shape;
    // The memory planner may have placed the input in its slab already
    // (only ever at a constant offset).
    bool placed = offset.isConstant() &&
                  ctx.storedAt(node.input(i), result, uint64_t(offset.constant() * elementSize));
    if (status.ok() && !placed)
      status = emitStridedCopy(ctx, node.input(i), 0, contiguousStrides(shape), result,
                               offset * elementSize, outStrides, shape);
  });
  return status;
}

} // namespace

extern const OpDefinition kConcatOp = {
    OpSchema{"Concat",
             1,
             1 << 20,
             1,
             1,
             {{"axis", AttrKind::Int, std::nullopt, /*required=*/true}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
