// Shape: the input's dimensions as i64[n], optionally sliced by start/end
// (opset 15). Folded when they are constants; symbolic ones are the
// result's dim values, which the code generator stores (see lowerNode).
#include "OpSupport.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

std::vector<Dim> selectedDims(const Node &node, const Shape &shape) {
  int64_t rank = int64_t(shape.size());
  auto clampIndex = [rank](int64_t index) {
    index = index < 0 ? index + rank : index;
    return std::clamp<int64_t>(index, 0, rank);
  };
  int64_t start = clampIndex(node.getInt("start", 0));
  int64_t end = clampIndex(node.getInt("end", rank));
  return start < end ? std::vector<Dim>(shape.begin() + start, shape.begin() + end)
                     : std::vector<Dim>{};
}

Status infer(InferContext &ctx) {
  std::vector<Dim> dims = selectedDims(ctx.node(), ctx.inputShape(0));
  ctx.setOutput(0, TensorType{DType::I64, {int64_t(dims.size())}});
  ctx.setOutputDims(0, std::move(dims));
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const>, std::span<Tensor> out) {
  std::vector<int64_t> dims = staticDims(selectedDims(node, node.input(0)->type().shape));
  out[0] = Tensor::fromInt64s(dims, {int64_t(dims.size())});
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: Shape is folded or stored from its dim values");
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
