#include "ElementsCommon.h"

namespace cuvil::ops {

Expected<int64_t> checkElementsShapes(InferContext &ctx) {
  const Shape &data = ctx.inputShape(0), &indices = ctx.inputShape(1);
  DType indexType = ctx.inputDType(1);
  if (indexType != DType::I64 && indexType != DType::I32)
    return ctx.error("indices must be i32 or i64, got {}", dtypeName(indexType));
  if (data.size() != indices.size())
    return ctx.error("indices have rank {}, data rank {}: they must be equal", indices.size(),
                     data.size());
  if (data.empty())
    return ctx.error("data must have rank 1 or more");
  Expected<int64_t> axis = normalizeAxis(ctx.node().getInt("axis"), int64_t(data.size()));
  CUVIL_TRY(axis.status());
  // Off the axis, indices may be smaller than data; where that depends on
  // run-time dims, the run checks it.
  for (size_t d = 0; d < data.size(); ++d)
    if (int64_t(d) != *axis && indices[d] != data[d] && indices[d].min() > data[d].max())
      return ctx.error("indices dim {} ({}) exceeds data dim {} ({})", d, indices[d].str(), d,
                       data[d].str());
  return axis;
}

Expected<ElementsSpace> elementsSpace(const Shape &data, const Shape &indices, int64_t axis) {
  std::vector<Dim> strides = contiguousStrides(data);
  ElementsSpace space{{indices[0]}, {data[0]}, {strides[0]}, 0};
  for (size_t d = 1; d < data.size(); ++d) {
    bool mergeable = int64_t(d) != axis && int64_t(d) - 1 != axis && indices[d] == data[d];
    if (mergeable) {
      space.shape.back() = space.shape.back() * indices[d];
      space.dataShape.back() = space.dataShape.back() * data[d];
      space.dataStrides.back() = strides[d];
      continue;
    }
    if (int64_t(d) == axis)
      space.axis = int64_t(space.shape.size());
    space.shape.push_back(indices[d]);
    space.dataShape.push_back(data[d]);
    space.dataStrides.push_back(strides[d]);
  }
  if (space.shape.size() > CUVIL_MAX_RANK)
    return Status::error(fmt::format("rank {} is above the supported {} (after merging dims)",
                                     space.shape.size(), CUVIL_MAX_RANK));
  // Right-aligned in rank 6: leading dims of extent 1.
  size_t lead = CUVIL_MAX_RANK - space.shape.size();
  space.shape.insert(space.shape.begin(), lead, Dim(1));
  space.dataShape.insert(space.dataShape.begin(), lead, Dim(1));
  space.dataStrides.insert(space.dataStrides.begin(), lead, Dim(0));
  space.axis += int64_t(lead);
  return space;
}

std::vector<std::string> elementsErrorMessages(const Dim &axisDim) {
  return {fmt::format("index {{}} is out of range for a dimension of {}", axisDim.str()),
          "an indices dim off the axis ({}) exceeds data's"};
}

Status checkElementsDims(const Tensor &data, const Tensor &indices, int64_t axis) {
  for (int64_t d = 0; d < data.type().rank(); ++d)
    if (d != axis && indices.dim(size_t(d)) > data.dim(size_t(d)))
      return Status::error(fmt::format("indices dim {} ({}) exceeds data dim {} ({})", d,
                                       indices.dim(size_t(d)), d, data.dim(size_t(d))));
  return Status::success();
}

} // namespace cuvil::ops
