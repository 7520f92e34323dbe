#include "NDCommon.h"

namespace cuvil::ops {

Expected<TupleGeometry> tupleGeometry(const Shape &data, const TensorType &indices, size_t first) {
  if (indices.dtype != DType::I64)
    return Status::error(fmt::format("indices must be i64, got {}", dtypeName(indices.dtype)));
  if (indices.shape.empty())
    return Status::error("indices must have rank 1 or more, are a scalar");
  const Dim &last = indices.shape.back();
  if (!last.isConstant())
    return Status::error(fmt::format("the last dim of indices ({}) must be known at compile time: "
                                     "it is the length of each index tuple",
                                     last));
  int64_t depth = last.constant();
  if (depth > int64_t(data.size() - first))
    return Status::error(fmt::format("index tuples of {} elements exceed data's {} dims", depth,
                                     data.size() - first));
  if (depth > CUVIL_MAX_RANK)
    return Status::error(fmt::format("index tuples of {} elements are above the supported {}",
                                     depth, CUVIL_MAX_RANK));
  std::span<const Dim> dims(data), indexDims(indices.shape);
  TupleGeometry g{first,
                  depth,
                  numElements(indexDims.subspan(first, indexDims.size() - 1 - first)),
                  numElements(dims.subspan(first + size_t(depth))),
                  {},
                  {}};
  for (size_t d = first; d < first + size_t(depth); ++d) {
    g.dims.push_back(data[d]);
    g.steps.push_back(numElements(dims.subspan(d + 1)));
  }
  return g;
}

std::vector<std::string> tupleErrorMessages(const TupleGeometry &g) {
  // Empty tuples check nothing, but the error cell needs a message.
  if (g.depth == 0)
    return {"index {} is out of range"};
  std::vector<std::string> messages;
  for (size_t d = 0; d < size_t(g.depth); ++d)
    messages.push_back(fmt::format("index {{}} is out of range for data dim {} of size {}",
                                   g.first + d, g.dims[d]));
  return messages;
}

Expected<int64_t> tupleOffset(const TupleGeometry &g, const Tensor &indices, int64_t row) {
  int64_t offset = 0;
  for (size_t d = 0; d < size_t(g.depth); ++d) {
    int64_t index = indices.getInt(row * g.depth + int64_t(d)), n = g.dims[d].constant();
    if (index < -n || index >= n)
      return Status::error(fmt::format("index {} is out of range for data dim {} of size {}", index,
                                       g.first + d, n));
    offset += (index < 0 ? index + n : index) * g.steps[d].constant();
  }
  return offset;
}

} // namespace cuvil::ops
