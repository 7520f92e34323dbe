// What GatherElements and ScatterElements share: indices with data's rank
// that stand for positions of data with one coordinate, the axis, replaced
// by the index (an output position for the scatter, an input one for the
// gather), and the rank-6 space their kernels walk.
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

// Indices (i32 or i64, input 1) of data's rank (input 0, rank 1 or more),
// no dim off the axis larger than data's where the shapes tell; the
// normalised axis. Dims that may be larger at run time are the kernel's
// check 2.
Expected<int64_t> checkElementsShapes(InferContext &ctx);

// The kernels' view of indices' shape with data's strides, right-aligned in
// rank 6: a dim next to another off the axis, whose extent indices and data
// share, is merged into it.
struct ElementsSpace {
  Shape shape, dataShape; // CUVIL_MAX_RANK dims each
  std::vector<Dim> dataStrides;
  int64_t axis = 0;
};
Expected<ElementsSpace> elementsSpace(const Shape &data, const Shape &indices, int64_t axis);

// Sets the space into a kernel's parameter block (fields shape, data_shape,
// data_strides, axis and axis_dim, the data's extent along the axis).
template <typename Block>
void setElementsSpace(ParamBlock<Block> &params, const ElementsSpace &space, const Dim &axisDim) {
  for (size_t d = 0; d < CUVIL_MAX_RANK; ++d) {
    params.set(params->shape[d], space.shape[d]);
    params.set(params->data_shape[d], space.dataShape[d]);
    params.set(params->data_strides[d], space.dataStrides[d]);
  }
  params->axis = space.axis;
  params.set(params->axis_dim, axisDim);
}

// The message of the kernels' checks 1 and 2.
std::vector<std::string> elementsErrorMessages(const Dim &axisDim);

// The references' walk: fn(position, target) for every position of indices
// in row-major order, with the flat offset into data it names; an error
// for an indices dim off the axis larger than data's or an index out of
// range.
Status checkElementsDims(const Tensor &data, const Tensor &indices, int64_t axis);
template <typename Fn>
Status forEachElementIndex(const Tensor &data, const Tensor &indices, int64_t axis, Fn fn) {
  CUVIL_TRY(checkElementsDims(data, indices, axis));
  std::vector<int64_t> strides = staticStrides(data.shape()), dims = indices.dims();
  std::vector<int64_t> position(dims.size(), 0);
  const int64_t axisDim = data.dim(size_t(axis));
  for (int64_t flat = 0, n = indices.numElements(); flat < n; ++flat) {
    int64_t k = indices.getInt(flat);
    if (k < -axisDim || k >= axisDim)
      return Status::error(
          fmt::format("index {} is out of range for a dimension of {}", k, axisDim));
    int64_t target = 0;
    for (size_t d = 0; d < dims.size(); ++d)
      target += (int64_t(d) == axis ? (k < 0 ? k + axisDim : k) : position[d]) * strides[d];
    fn(flat, target);
    for (size_t d = dims.size(); d-- > 0 && ++position[d] == dims[d];)
      position[d] = 0;
  }
  return Status::success();
}

} // namespace cuvil::ops
