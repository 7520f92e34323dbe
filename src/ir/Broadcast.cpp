#include "cuvil/ir/Broadcast.h"

#include <algorithm>
#include <fmt/format.h>

namespace cuvil {

Expected<Shape> broadcastShapes(const Shape &a, const Shape &b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    Dim da = i < rank - a.size() ? Dim(1) : a[i - (rank - a.size())];
    Dim db = i < rank - b.size() ? Dim(1) : b[i - (rank - b.size())];
    if (!(da == db) && !da.is(1) && !db.is(1))
      return Status::error(
          fmt::format("shapes [{}] and [{}] do not broadcast", shapeToString(a), shapeToString(b)));
    out[i] = da.is(1) ? db : da;
  }
  return out;
}

std::vector<Dim> broadcastStrides(const Shape &operand, const Shape &out) {
  std::vector<Dim> strides(out.size(), Dim(0));
  std::vector<Dim> own = contiguousStrides(operand);
  size_t offset = out.size() - operand.size();
  for (size_t i = 0; i < operand.size(); ++i)
    strides[offset + i] = operand[i].is(1) ? Dim(0) : own[i];
  return strides;
}

} // namespace cuvil
