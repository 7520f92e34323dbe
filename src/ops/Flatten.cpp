// Flatten: to 2-D [prod(dims before axis), prod(dims from axis)]. A view.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &in = ctx.inputShape(0);
  int64_t rank = int64_t(in.size());
  int64_t axis = ctx.node().getInt("axis", 1);
  if (axis < -rank || axis > rank)
    return ctx.error("axis {} is out of range for rank {}", axis, rank);
  if (axis < 0)
    axis += rank;
  Dim outer = numElements(std::span(in).first(size_t(axis)));
  Dim inner = numElements(std::span(in).subspan(size_t(axis)));
  ctx.setOutput(0, TensorType{ctx.inputDType(0), {outer, inner}});
  forwardDimValues(ctx);
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  out[0] = in[0]->reshaped(out[0].shape());
  return Status::success();
}

} // namespace

extern const OpDefinition kFlattenOp = {
    OpSchema{"Flatten", 1, 1, 1, 1, {{"axis", AttrKind::Int}}, infer, eval, /*isView=*/true},
    lowerViewOrCopy};

} // namespace cuvil::ops
