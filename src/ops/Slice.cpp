// Slice: for each listed axis, elements start, start+step, ... before end,
// with ONNX's clamping of out-of-range starts/ends. starts/ends/axes/steps
// are constant inputs (the importer turns opset < 10 attributes into them).
// Lowered to a strided copy.
#include "OpSupport.h"

#include <algorithm>
#include <numeric>

namespace cuvil::ops {
namespace {

struct SliceGeometry {
  Shape outShape;
  int64_t offset = 0;             // first element, in input elements
  std::vector<int64_t> inStrides; // input elements per output step, per dim
};

Expected<SliceGeometry> geometry(const Node &node, const Shape &in) {
  int64_t rank = int64_t(in.size());
  auto constantInput = [&](size_t i) -> Expected<std::vector<int64_t>> {
    const Value *value = node.input(i);
    if (!value->isConstant())
      return Status::error(fmt::format("input {} of Slice must be known at compile time", i));
    return value->constant().toInt64s();
  };
  Expected<std::vector<int64_t>> starts = constantInput(1), ends = constantInput(2);
  CUVIL_TRY(starts.status());
  CUVIL_TRY(ends.status());
  std::vector<int64_t> axes(starts->size()), steps(starts->size(), 1);
  std::iota(axes.begin(), axes.end(), 0);
  if (node.hasInput(3)) {
    Expected<std::vector<int64_t>> given = constantInput(3);
    CUVIL_TRY(given.status());
    axes = *given;
  }
  if (node.hasInput(4)) {
    Expected<std::vector<int64_t>> given = constantInput(4);
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
  std::vector<int64_t> strides = contiguousStrides(in);
  result.inStrides = strides;
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t axis = size_t((*normalized)[i]);
    int64_t dim = in[axis], step = steps[i];
    if (step == 0)
      return Status::error("slice step must not be 0");
    int64_t start = (*starts)[i], end = (*ends)[i];
    start = start < 0 ? start + dim : start;
    end = end < 0 ? end + dim : end;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
    }
    int64_t count = step > 0 ? (end - start + step - 1) / step : (start - end - step - 1) / -step;
    result.outShape[axis] = std::max<int64_t>(count, 0);
    result.offset += start * strides[axis];
    result.inStrides[axis] = strides[axis] * step;
  }
  return result;
}

Status infer(InferContext &ctx) {
  Expected<SliceGeometry> g = geometry(ctx.node(), ctx.inputShape(0));
  CUVIL_TRY(g.status());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), g->outShape});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  SliceGeometry g = *geometry(node, in[0]->shape());
  copyStrided(*in[0], g.offset, g.inStrides, out[0], 0, contiguousStrides(g.outShape), g.outShape);
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
