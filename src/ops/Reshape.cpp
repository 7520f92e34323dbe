// Reshape: same data, new shape from the `shape` input (a constant, or dims
// a shape computation gives); 0 copies the input's dimension (unless
// allowzero), -1 is inferred. A view.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  Expected<std::vector<Dim>> requested = dimsInput(ctx.node(), 1, "the target shape");
  CUVIL_TRY(requested.status());
  const Shape &in = ctx.inputShape(0);
  bool allowZero = ctx.node().getInt("allowzero", 0) != 0;
  Shape out;
  int64_t inferred = -1;
  Dim known = 1;
  for (size_t i = 0; i < requested->size(); ++i) {
    Dim dim = (*requested)[i];
    if (dim.is(0) && !allowZero) {
      if (i >= in.size())
        return ctx.error("shape entry {} is 0 but the input has rank {}", i, in.size());
      dim = in[i];
    }
    if (dim.is(-1)) {
      if (inferred >= 0)
        return ctx.error("more than one -1 in the target shape");
      inferred = int64_t(i);
    } else if (dim.min() < 0) {
      // A symbolic entry must be a dim, never a run-time 0 or -1.
      return ctx.error("invalid target dimension {}", dim);
    } else {
      known *= dim;
    }
    out.push_back(dim);
  }
  Dim total = numElements(in);
  if (inferred >= 0) {
    if (known.is(0) || !mod(total, known).is(0))
      return ctx.error("cannot reshape [{}] to [{}]", shapeToString(in), shapeToString(*requested));
    out[size_t(inferred)] = floorDiv(total, known);
  }
  if (!(numElements(out) == total))
    return ctx.error("cannot reshape [{}] ({} elements) to [{}]", shapeToString(in), total,
                     shapeToString(out));
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  forwardDimValues(ctx);
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  out[0] = in[0]->reshaped(out[0].shape());
  return Status::success();
}

} // namespace

extern const OpDefinition kReshapeOp = {
    OpSchema{"Reshape", 2, 2, 1, 1, {{"allowzero", AttrKind::Int}}, infer, eval, /*isView=*/true},
    lowerViewOrCopy};

} // namespace cuvil::ops
