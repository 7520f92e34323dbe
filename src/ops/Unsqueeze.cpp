// Unsqueeze: inserts size-1 dims at the constant `axes` (positions in the
// output). A view.
#include "OpSupport.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &in = ctx.inputShape(0);
  Expected<std::vector<int64_t>> given = constantInts(ctx.node(), 1, "axes");
  CUVIL_TRY(given.status());
  int64_t outRank = int64_t(in.size() + given->size());
  Expected<std::vector<int64_t>> axes = normalizeAxes(*given, outRank);
  CUVIL_TRY(axes.status());
  Shape out;
  size_t next = 0;
  for (int64_t i = 0; i < outRank; ++i)
    out.push_back(std::count(axes->begin(), axes->end(), i) ? 1 : in[next++]);
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  forwardDimValues(ctx);
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  out[0] = in[0]->reshaped(out[0].shape());
  return Status::success();
}

} // namespace

extern const OpDefinition kUnsqueezeOp = {OpSchema{"Unsqueeze", 2, 2, 1, 1, {}, infer, eval, true},
                                          lowerViewOrCopy};

} // namespace cuvil::ops
