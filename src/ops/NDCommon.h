// What GatherND and ScatterND share: indices whose last dim, known at
// compile time, holds tuples of `depth` indices, each naming the slice of
// data at a position in its dims [first, first + depth) (first: GatherND's
// batch dims), and the kernels' view of them.
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

struct TupleGeometry {
  size_t first = 0;
  int64_t depth = 0;
  Dim tuples;             // per batch: indices' dims [first, rank - 1)
  Dim slice;              // data's dims from first + depth on
  std::vector<Dim> dims;  // data's dims [first, first + depth)
  std::vector<Dim> steps; // the elements between positions along each
};
// An error when indices are not i64 of rank 1 or more, their last dim is
// not a constant, or it exceeds data's dims from `first` on (or the
// kernels' rank).
Expected<TupleGeometry> tupleGeometry(const Shape &data, const TensorType &indices, size_t first);

// Sets index_dims, index_strides, depth, tuples and slice of a kernel's
// parameter block.
template <typename Block> void setTupleGeometry(ParamBlock<Block> &params, const TupleGeometry &g) {
  for (size_t d = 0; d < size_t(g.depth); ++d) {
    params.set(params->index_dims[d], g.dims[d]);
    params.set(params->index_strides[d], g.steps[d]);
  }
  params->depth = g.depth;
  params.set(params->tuples, g.tuples);
  params.set(params->slice, g.slice);
}

// The messages of the kernels' checks, one per tuple component.
std::vector<std::string> tupleErrorMessages(const TupleGeometry &g);

// The references' view: the element offset in its batch that tuple `row`
// of constant indices names, or an error for a component out of range.
Expected<int64_t> tupleOffset(const TupleGeometry &g, const Tensor &indices, int64_t row);

} // namespace cuvil::ops
