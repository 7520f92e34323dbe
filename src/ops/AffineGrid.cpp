// AffineGrid (opset 20): the sampling grid of GridSample for affine maps
// theta ([N, 2, 3] for a 2-D size [N, C, H, W], [N, 3, 4] for a 3-D one):
// grid[n, ..., :] = theta[n] (x, y, [z,] 1) at each output point's
// normalised coordinates, -1 to 1 through the pixel centres, or the corner
// pixels with align_corners. `size` must be known at compile time.
// canonicalize rewrites it into one batched MatMul with a constant base
// grid (CanonicalizeCrop.cpp). Debian's ONNX 1.12 predates it.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  if (ctx.inputDType(1) != DType::I64)
    return ctx.error("size must be int64, not {}", dtypeName(ctx.inputDType(1)));
  Expected<std::vector<int64_t>> size = constantInts(ctx.node(), 1, "size");
  CUVIL_TRY(size.status());
  const Shape &theta = ctx.inputShape(0);
  if (size->size() != 4 && size->size() != 5)
    return ctx.error("size must have 4 or 5 elements (N, C, [D,] H, W), not {}", size->size());
  const int64_t spatial = int64_t(size->size()) - 2;
  if (theta.size() != 3 || theta[1] != Dim(spatial) || theta[2] != Dim(spatial + 1))
    return ctx.error("theta must be [N, {}, {}] for a {}-D size", spatial, spatial + 1, spatial);
  if (!isFloat(ctx.inputDType(0)))
    return ctx.error("expects float theta, got {}", dtypeName(ctx.inputDType(0)));
  // The rewrite builds the base grid at compile time: one row per point.
  constexpr int64_t kMaxPoints = int64_t(1) << 25;
  Shape out = {theta[0]};
  int64_t points = 1;
  for (size_t d = 2; d < size->size(); ++d) {
    if ((*size)[d] < 1 || (*size)[d] > kMaxPoints / points)
      return ctx.error("size's extents must be at least 1 and make at most {} points", kMaxPoints);
    points *= (*size)[d];
    out.push_back((*size)[d]);
  }
  out.push_back(spatial);
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites AffineGrid");
}

} // namespace

extern const OpDefinition kAffineGridOp = {OpSchema{"AffineGrid",
                                                    2,
                                                    2,
                                                    1,
                                                    1,
                                                    {{"align_corners", AttrKind::Int, int64_t(0)}},
                                                    infer,
                                                    /*reference: see canonicalize*/ nullptr},
                                           lower};

} // namespace cuvil::ops
