// GatherElements: out[i] = data[i with i[axis] replaced by indices[i]]; the
// output has the indices' shape. Negative indices count from the end; one
// outside [-n, n) is refused, at compile time for constants and by the run
// otherwise. NegativeLogLikelihoodLoss's body picks each target's score
// with it.
#include "OpSupport.h"
#include "cuvil/kernels/DataMovement.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &data = ctx.inputShape(0), &indices = ctx.inputShape(1);
  DType indexType = ctx.inputDType(1);
  if (indexType != DType::I64 && indexType != DType::I32)
    return ctx.error("indices must be i32 or i64, got {}", dtypeName(indexType));
  if (data.size() != indices.size())
    return ctx.error("indices have rank {}, data rank {}: they must be equal", indices.size(),
                     data.size());
  if (data.empty())
    return ctx.error("data must have rank 1 or more");
  Expected<int64_t> axis = normalizeAxis(ctx.node().getInt("axis", 0), int64_t(data.size()));
  CUVIL_TRY(axis.status());
  // Off the axis, indices may be smaller than data; where that depends on
  // run-time dims, the run checks it.
  for (size_t d = 0; d < data.size(); ++d)
    if (int64_t(d) != *axis && indices[d] != data[d] && indices[d].min() > data[d].max())
      return ctx.error("indices dim {} ({}) exceeds data dim {} ({})", d, indices[d].str(), d,
                       data[d].str());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), indices});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &data = *in[0], &indices = *in[1];
  int64_t rank = data.type().rank();
  int64_t axis = *normalizeAxis(node.getInt("axis", 0), rank);
  std::vector<int64_t> dataStrides = staticStrides(data.shape()), dims = indices.dims();
  std::vector<int64_t> index(size_t(rank), 0);
  int64_t axisDim = data.dims()[size_t(axis)];
  size_t size = dtypeSize(data.dtype());
  for (int64_t flat = 0, n = indices.numElements(); flat < n; ++flat) {
    int64_t k = indices.getInt(flat);
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && dims[size_t(d)] > data.dims()[size_t(d)])
        return Status::error(fmt::format("indices dim {} ({}) exceeds data dim {} ({})", d,
                                         dims[size_t(d)], d, data.dims()[size_t(d)]));
    if (k < -axisDim || k >= axisDim)
      return Status::error(
          fmt::format("index {} is out of range for a dimension of {}", k, axisDim));
    int64_t source = 0;
    for (int64_t d = 0; d < rank; ++d)
      source += (d == axis ? (k < 0 ? k + axisDim : k) : index[size_t(d)]) * dataStrides[size_t(d)];
    std::copy_n(data.bytes() + source * int64_t(size), size, out[0].mutableBytes() + flat * size);
    for (int64_t d = rank - 1; d >= 0 && ++index[size_t(d)] == dims[size_t(d)]; --d)
      index[size_t(d)] = 0;
  }
  return Status::success();
}

// The kernel's view: dims (of indices, with data's strides) where a dim
// next to another off the axis, whose extent indices and data share, is
// merged into it; at most rank 6.
struct GatherElementsSpace {
  Shape shape, dataShape;
  std::vector<Dim> strides;
  size_t axis = 0;
};

GatherElementsSpace mergedSpace(const Shape &data, const Shape &indices, size_t axis) {
  std::vector<Dim> strides = contiguousStrides(data);
  GatherElementsSpace space{{indices[0]}, {data[0]}, {strides[0]}, 0};
  for (size_t d = 1; d < data.size(); ++d) {
    bool mergeable = d != axis && d - 1 != axis && indices[d] == data[d];
    if (mergeable) {
      space.shape.back() = space.shape.back() * indices[d];
      space.dataShape.back() = space.dataShape.back() * data[d];
      space.strides.back() = strides[d];
      continue;
    }
    if (d == axis)
      space.axis = space.shape.size();
    space.shape.push_back(indices[d]);
    space.dataShape.push_back(data[d]);
    space.strides.push_back(strides[d]);
  }
  return space;
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *data = node.input(0), *indices = node.input(1);
  const Shape &dataShape = data->type().shape;
  int64_t axis = *normalizeAxis(node.getInt("axis", 0), int64_t(dataShape.size()));
  GatherElementsSpace space = mergedSpace(dataShape, indices->type().shape, size_t(axis));
  const Shape &shape = space.shape;
  const std::vector<Dim> &strides = space.strides;
  if (shape.size() > CUVIL_MAX_RANK)
    return Status::error(fmt::format("rank {} is above the supported {} (after merging dims)",
                                     shape.size(), CUVIL_MAX_RANK));
  // Right-aligned in rank 6: leading dims of extent 1.
  size_t lead = CUVIL_MAX_RANK - shape.size();
  ParamBlock<cuvil_gather_elements_params> params;
  for (size_t d = 0; d < CUVIL_MAX_RANK; ++d) {
    params.set(params->shape[d], d < lead ? Dim(1) : shape[d - lead]);
    params.set(params->data_shape[d], d < lead ? Dim(1) : space.dataShape[d - lead]);
    params.set(params->data_strides[d], d < lead ? Dim(0) : strides[d - lead]);
  }
  params->axis = int64_t(space.axis + lead);
  params.set(params->axis_dim, dataShape[size_t(axis)]);
  Expected<const KernelRef *> kernel =
      gatherElementsKernel(dtypeSize(data->type().dtype), indices->type().dtype);
  CUVIL_TRY(kernel.status());
  Dim rows = numElements(std::span<const Dim>(shape).first(shape.size() - 1));
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(data), KernelArg::pointer(indices),
                         KernelArg::pointer(node.output(0)),
                         KernelArg::error({fmt::format("index {{}} is out of range for a "
                                                       "dimension of {}",
                                                       dataShape[size_t(axis)].str()),
                                           "an indices dim off the axis ({}) exceeds data's"}),
                         KernelArg::params(params)},
                        rows);
}

} // namespace

extern const OpDefinition kGatherElementsOp = {
    OpSchema{"GatherElements", 2, 2, 1, 1, {{"axis", AttrKind::Int}}, infer, eval}, lower};

} // namespace cuvil::ops
