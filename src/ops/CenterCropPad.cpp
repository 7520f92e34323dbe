// CenterCropPad (opset 18): each axis of `axes` (default all) cropped or
// zero-padded about its centre to the extent `shape` gives (a compile-time
// constant, or fixed by --value): a crop starts floor((in - out) / 2) in,
// a pad puts floor((out - in) / 2) zeros before. canonicalize rewrites it
// into Slice and Pad (CanonicalizeCrop.cpp); the extents of the axes it
// changes must be known at compile time. Debian's ONNX 1.12 predates it.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &in = ctx.inputShape(0);
  if (ctx.inputDType(1) != DType::I64 && ctx.inputDType(1) != DType::I32)
    return ctx.error("shape must be int64 or int32, not {}", dtypeName(ctx.inputDType(1)));
  Expected<std::vector<int64_t>> target = constantInts(ctx.node(), 1, "shape");
  CUVIL_TRY(target.status());
  std::vector<int64_t> axes = ctx.node().getInts("axes");
  if (axes.empty())
    for (size_t d = 0; d < in.size(); ++d)
      axes.push_back(int64_t(d));
  if (axes.size() != target->size())
    return ctx.error("shape has {} elements for {} axes", target->size(), axes.size());
  Expected<std::vector<int64_t>> normalized = normalizeAxes(axes, int64_t(in.size()));
  CUVIL_TRY(normalized.status());
  Shape out = in;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = (*normalized)[i], extent = (*target)[i];
    if (extent < 0)
      return ctx.error("shape has a negative extent {}", extent);
    if (!in[size_t(axis)].isConstant())
      return ctx.error("axis {} must have an extent known at compile time to crop or pad", axis);
    out[size_t(axis)] = extent;
  }
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites CenterCropPad");
}

} // namespace

extern const OpDefinition kCenterCropPadOp = {OpSchema{"CenterCropPad",
                                                       2,
                                                       2,
                                                       1,
                                                       1,
                                                       {{"axes", AttrKind::Ints}},
                                                       infer,
                                                       /*reference: see canonicalize*/ nullptr},
                                              lower};

} // namespace cuvil::ops
