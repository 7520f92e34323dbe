// Shape: the input's dimensions as i64[n], optionally sliced by start/end
// (opset 15). Always folded: shapes are static.
#include "OpSupport.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

std::vector<int64_t> selectedDims(const Node &node, const Shape &shape) {
  int64_t rank = int64_t(shape.size());
  auto clampIndex = [rank](int64_t index) {
    index = index < 0 ? index + rank : index;
    return std::clamp<int64_t>(index, 0, rank);
  };
  int64_t start = clampIndex(node.getInt("start", 0));
  int64_t end = clampIndex(node.getInt("end", rank));
  return start < end ? std::vector<int64_t>(shape.begin() + start, shape.begin() + end)
                     : std::vector<int64_t>{};
}

Status infer(InferContext &ctx) {
  int64_t count = int64_t(selectedDims(ctx.node(), ctx.inputShape(0)).size());
  ctx.setOutput(0, TensorType{DType::I64, {count}});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const>, std::span<Tensor> out) {
  std::vector<int64_t> dims = selectedDims(node, node.input(0)->type().shape);
  out[0] = Tensor::fromInt64s(dims, {int64_t(dims.size())});
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: Shape should have been folded");
}

} // namespace

extern const OpDefinition kShapeOp = {OpSchema{"Shape",
                                               1,
                                               1,
                                               1,
                                               1,
                                               {{"start", AttrKind::Int}, {"end", AttrKind::Int}},
                                               infer,
                                               eval,
                                               /*isView=*/false,
                                               /*foldsFromTypes=*/true},
                                      lower};

} // namespace cuvil::ops
