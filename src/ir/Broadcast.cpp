#include "cuvil/ir/Broadcast.h"

#include <algorithm>
#include <fmt/format.h>

namespace cuvil {

Expected<Shape> broadcastShapes(const Shape &a, const Shape &b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return Status::error(
          fmt::format("shapes [{}] and [{}] do not broadcast", shapeToString(a), shapeToString(b)));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<int64_t> broadcastStrides(const Shape &operand, const Shape &out) {
  std::vector<int64_t> strides(out.size(), 0);
  std::vector<int64_t> own = contiguousStrides(operand);
  size_t offset = out.size() - operand.size();
  for (size_t i = 0; i < operand.size(); ++i)
    strides[offset + i] = operand[i] == 1 ? 0 : own[i];
  return strides;
}

} // namespace cuvil
