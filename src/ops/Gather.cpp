// Gather: out[o, j..., i] = data[o, indices[j...], i] along `axis`; negative
// indices count from the end. Indices may be run-time data (token ids).
#include "OpSupport.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

struct GatherGeometry {
  Dim outer, axisDim, inner;
};

GatherGeometry geometry(const Shape &data, int64_t axis) {
  std::span<const Dim> dims(data);
  return {numElements(dims.first(size_t(axis))), data[size_t(axis)],
          numElements(dims.subspan(size_t(axis) + 1))};
}

Status infer(InferContext &ctx) {
  const Shape &data = ctx.inputShape(0);
  if (data.empty())
    return ctx.error("data must have rank 1 or more, is a scalar");
  Expected<int64_t> axis = normalizeAxis(ctx.node().getInt("axis", 0), int64_t(data.size()));
  CUVIL_TRY(axis.status());
  DType indexType = ctx.inputDType(1);
  if (indexType != DType::I64 && indexType != DType::I32)
    return ctx.error("indices must be i32 or i64, got {}", dtypeName(indexType));
  Shape out(data.begin(), data.begin() + *axis);
  const Shape &indices = ctx.inputShape(1);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), data.begin() + *axis + 1, data.end());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  // A dim picked out of a shape: Gather(Shape(x), 0) is x's first dim.
  std::optional<std::vector<Dim>> picks = inputDimValues(ctx, 1);
  if (ctx.inputDims(0) && data.size() == 1 && picks && isStatic(*picks) &&
      carriesDimValues(ctx, 0)) {
    const std::vector<Dim> &dims = *ctx.inputDims(0);
    std::vector<Dim> picked;
    for (int64_t index : staticDims(*picks)) {
      index = index < 0 ? index + int64_t(dims.size()) : index;
      if (index < 0 || index >= int64_t(dims.size()))
        return ctx.error("index {} is out of range for a dimension of {}", index, dims.size());
      picked.push_back(dims[size_t(index)]);
    }
    ctx.setOutputDims(0, std::move(picked));
  }
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &data = *in[0], &indices = *in[1];
  int64_t axis = *normalizeAxis(node.getInt("axis", 0), data.type().rank());
  GatherGeometry g = geometry(data.shape(), axis);
  const int64_t outer = g.outer.constant(), axisDim = g.axisDim.constant();
  const int64_t inner = g.inner.constant();
  size_t elementSize = dtypeSize(data.dtype());
  int64_t count = indices.numElements();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < count; ++j) {
      int64_t index = indices.getInt(j);
      index = index < 0 ? index + axisDim : index;
      if (index < 0 || index >= axisDim)
        return Status::error(fmt::format("index {} is out of range for a dimension of {}",
                                         indices.getInt(j), axisDim));
      std::copy_n(data.bytes() + ((o * axisDim + index) * inner) * int64_t(elementSize),
                  inner * int64_t(elementSize),
                  out[0].mutableBytes() + ((o * count + j) * inner) * int64_t(elementSize));
    }
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *data = node.input(0), *indices = node.input(1);
  int64_t axis = *normalizeAxis(node.getInt("axis", 0), data->type().rank());
  GatherGeometry g = geometry(data->type().shape, axis);
  Dim count = indices->type().numElements();
  Expected<const KernelRef *> kernel =
      gatherKernel(dtypeSize(data->type().dtype), indices->type().dtype);
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(
      **kernel,
      {KernelArg::pointer(data), KernelArg::pointer(indices), KernelArg::pointer(node.output(0)),
       KernelArg::error(
           {fmt::format("index {{}} is out of range for a dimension of {}", g.axisDim.str())}),
       KernelArg::constant(g.axisDim), KernelArg::constant(g.inner), KernelArg::constant(count)},
      g.outer * count);
}

} // namespace

extern const OpDefinition kGatherOp = {
    OpSchema{"Gather", 2, 2, 1, 1, {{"axis", AttrKind::Int}}, infer, eval}, lower};

} // namespace cuvil::ops
