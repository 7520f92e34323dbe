// Squeeze: drops the size-1 dims listed in the constant `axes` input (all
// size-1 dims when omitted, which a symbolic dim that may be 1 cannot be
// part of: the rank would depend on the input). A view.
#include "OpSupport.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &in = ctx.inputShape(0);
  std::vector<int64_t> axes;
  if (ctx.hasInput(1)) {
    Expected<std::vector<int64_t>> given = constantInts(ctx.node(), 1, "axes");
    CUVIL_TRY(given.status());
    Expected<std::vector<int64_t>> normalized = normalizeAxes(*given, int64_t(in.size()));
    CUVIL_TRY(normalized.status());
    axes = *normalized;
    for (int64_t axis : axes)
      if (in[size_t(axis)] != 1)
        return ctx.error("cannot squeeze axis {} of size {}", axis, in[size_t(axis)]);
  } else {
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] == 1)
        axes.push_back(int64_t(i));
      // Whether it goes would decide the result's rank at run time.
      else if (!in[i].isConstant() && in[i].min() <= 1 && in[i].max() >= 1)
        return ctx.error("without axes, dim {} ({}, which may be 1) would be squeezed or kept "
                         "depending on the input: give axes, or a range that excludes 1",
                         i, in[i]);
    }
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i)
    if (std::find(axes.begin(), axes.end(), int64_t(i)) == axes.end())
      out.push_back(in[i]);
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  forwardDimValues(ctx);
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  out[0] = in[0]->reshaped(out[0].shape());
  return Status::success();
}

} // namespace

extern const OpDefinition kSqueezeOp = {OpSchema{"Squeeze", 1, 2, 1, 1, {}, infer, eval, true},
                                        lowerViewOrCopy};

} // namespace cuvil::ops
