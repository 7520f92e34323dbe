// Slice: for each listed axis, elements start, start+step, ... before end,
// with ONNX's clamping of out-of-range starts/ends. axes and steps are
// constant inputs, starts and ends constants or dims a shape computation
// gives (the importer turns opset < 10 attributes into inputs). Lowered to
// a strided copy.
#include "OpSupport.h"

#include <algorithm>
#include <numeric>

namespace cuvil::ops {
namespace {

struct SliceGeometry {
  Shape outShape;
  Dim offset = 0;             // first element, in input elements
  std::vector<Dim> inStrides; // input elements per output step, per dim
};

// A start or end counted from the end when negative; a symbolic one must
// have a known sign.
Expected<Dim> fromEnd(const Dim &index, const Dim &dim) {
  if (index.isConstant())
    return index.constant() < 0 ? index + dim : index;
  if (index.min() >= 0)
    return index;
  if (index.max() < 0)
    return index + dim;
  return Status::error(fmt::format("slice bound {} may be negative or not", index));
}

Expected<SliceGeometry> geometry(const Node &node, const Shape &in) {
  int64_t rank = int64_t(in.size());
  Expected<std::vector<Dim>> starts = dimsInput(node, 1, "starts"),
                             ends = dimsInput(node, 2, "ends");
  CUVIL_TRY(starts.status());
  CUVIL_TRY(ends.status());
  std::vector<int64_t> axes(starts->size()), steps(starts->size(), 1);
  std::iota(axes.begin(), axes.end(), 0);
  if (node.hasInput(3)) {
    Expected<std::vector<int64_t>> given = constantInts(node, 3, "axes");
    CUVIL_TRY(given.status());
    axes = *given;
  }
  if (node.hasInput(4)) {
    Expected<std::vector<int64_t>> given = constantInts(node, 4, "steps");
    CUVIL_TRY(given.status());
    steps = *given;
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() ||
      steps.size() != starts->size())
    return Status::error("starts, ends, axes and steps differ in length");
  Expected<std::vector<int64_t>> normalized = normalizeAxes(axes, rank);
  CUVIL_TRY(normalized.status());

  SliceGeometry result;
  result.outShape = in;
  std::vector<Dim> strides = contiguousStrides(in);
  result.inStrides = strides;
  auto clamp = [](const Dim &x, const Dim &lo, const Dim &hi) { return minDim(maxDim(x, lo), hi); };
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t axis = size_t((*normalized)[i]);
    const Dim &dim = in[axis];
    int64_t step = steps[i];
    if (step == 0)
      return Status::error("slice step must not be 0");
    Expected<Dim> start = fromEnd((*starts)[i], dim), end = fromEnd((*ends)[i], dim);
    CUVIL_TRY(start.status());
    CUVIL_TRY(end.status());
    if (step > 0) {
      *start = clamp(*start, 0, dim);
      *end = clamp(*end, 0, dim);
    } else {
      *start = clamp(*start, 0, dim - 1);
      *end = clamp(*end, -1, dim - 1);
    }
    Dim count = step > 0 ? ceilDiv(*end - *start, step) : ceilDiv(*start - *end, -step);
    result.outShape[axis] = maxDim(count, 0);
    result.offset += *start * strides[axis];
    result.inStrides[axis] = strides[axis] * step;
  }
  return result;
}

Status infer(InferContext &ctx) {
  Expected<SliceGeometry> g = geometry(ctx.node(), ctx.inputShape(0));
  CUVIL_TRY(g.status());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), g->outShape});
  // Part of a shape: Slice(Shape(x), 1, 3).
  if (ctx.inputDims(0) && ctx.inputShape(0).size() == 1 && carriesDimValues(ctx, 0) &&
      g->offset.isConstant() && g->inStrides[0].isConstant()) {
    const std::vector<Dim> &dims = *ctx.inputDims(0);
    std::vector<Dim> part;
    for (int64_t j = 0; j < g->outShape[0].constant(); ++j)
      part.push_back(dims[size_t(g->offset.constant() + j * g->inStrides[0].constant())]);
    ctx.setOutputDims(0, std::move(part));
  }
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  SliceGeometry g = *geometry(node, in[0]->shape());
  copyStrided(*in[0], g.offset.constant(), staticDims(g.inStrides), out[0], 0,
              staticStrides(g.outShape), out[0].dims());
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *input = node.input(0);
  Expected<SliceGeometry> g = geometry(node, input->type().shape);
  CUVIL_TRY(g.status());
  int64_t elementSize = int64_t(dtypeSize(input->type().dtype));
  return emitStridedCopy(ctx, input, g->offset * elementSize, g->inStrides, node.output(0), 0,
                         contiguousStrides(g->outShape), g->outShape);
}

} // namespace

extern const OpDefinition kSliceOp = {OpSchema{"Slice", 3, 5, 1, 1, {}, infer, eval}, lower};

} // namespace cuvil::ops
