#include "ScatterCommon.h"

#include <algorithm>
#include <array>
#include <utility>

namespace cuvil::ops {

Expected<cuvil_scatter_reduction> scatterReduction(const Node &node) {
  static constexpr std::array<std::pair<std::string_view, cuvil_scatter_reduction>, 5> kNames = {
      {{"none", CUVIL_SCATTER_NONE},
       {"add", CUVIL_SCATTER_ADD},
       {"mul", CUVIL_SCATTER_MUL},
       {"max", CUVIL_SCATTER_MAX},
       {"min", CUVIL_SCATTER_MIN}}};
  std::string name = node.getString("reduction");
  for (const auto &[known, reduction] : kNames)
    if (name == known)
      return reduction;
  return Status::error(
      fmt::format("reduction '{}' is not one of none, add, mul, max and min", name));
}

void combineElement(cuvil_scatter_reduction reduction, Tensor &out, int64_t at,
                    const Tensor &updates, int64_t from) {
  DType dtype = out.dtype();
  if (reduction == CUVIL_SCATTER_NONE) {
    size_t size = dtypeSize(dtype);
    std::copy_n(updates.bytes() + from * int64_t(size), size,
                out.mutableBytes() + at * int64_t(size));
    return;
  }
  if (dtype == DType::Bool) {
    bool either = reduction == CUVIL_SCATTER_ADD || reduction == CUVIL_SCATTER_MAX;
    bool e = out.getInt(at) != 0, u = updates.getInt(from) != 0;
    return out.setInt(at, either ? e || u : e && u);
  }
  if (isFloat(dtype)) {
    double e = out.getDouble(at), u = updates.getDouble(from);
    std::array<double, 5> results = {u, e + u, e * u, e > u ? e : u, e < u ? e : u};
    return out.setDouble(at, results[size_t(reduction)]);
  }
  // Integers wrap, as in the element type; unsigned ones compare unsigned.
  uint64_t e = uint64_t(out.getInt(at)), u = uint64_t(updates.getInt(from));
  bool unsignedType = isUnsignedInt(dtype);
  bool greater = unsignedType ? e > u : int64_t(e) > int64_t(u);
  bool less = unsignedType ? e < u : int64_t(e) < int64_t(u);
  std::array<uint64_t, 5> results = {u, e + u, e * u, greater ? e : u, less ? e : u};
  out.setInt(at, int64_t(results[size_t(reduction)]));
}

Status copyDataToOutput(const Node &node, LoweringContext &ctx) {
  const Value *data = node.input(0), *out = node.output(0);
  return emitStridedCopy(ctx, data, 0, {Dim(1)}, out, 0, {Dim(1)}, {data->type().numElements()});
}

} // namespace cuvil::ops
