#include "SpaceDepth.h"

namespace cuvil::ops {
namespace {

// Strides of the input [N, C, H, W] in elements.
struct NCHWStrides {
  Dim n, c, h, w;
};

template <bool ToSpace> Status infer(InferContext &ctx) {
  Expected<SpaceDepthCopy> copy = spaceDepthCopy(ctx.node(), ctx.inputShape(0), ToSpace);
  CUVIL_TRY(copy.status());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), copy->outShape});
  return Status::success();
}

template <bool ToSpace>
Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  SpaceDepthCopy copy = *spaceDepthCopy(node, in[0]->shape(), ToSpace);
  copyStrided(*in[0], 0, staticDims(copy.strides), out[0], 0, staticStrides(copy.shape),
              staticDims(copy.shape));
  return Status::success();
}

template <bool ToSpace> Status lower(const Node &node, LoweringContext &ctx) {
  SpaceDepthCopy copy = *spaceDepthCopy(node, node.input(0)->type().shape, ToSpace);
  return emitStridedCopy(ctx, node.input(0), 0, copy.strides, node.output(0), 0,
                         contiguousStrides(copy.shape), copy.shape);
}

template <bool ToSpace> OpDefinition definition(std::string_view name) {
  std::vector<AttrSpec> attributes = {{"blocksize", AttrKind::Int}};
  if (ToSpace)
    attributes.push_back({"mode", AttrKind::String});
  return {OpSchema{name, 1, 1, 1, 1, attributes, infer<ToSpace>, eval<ToSpace>}, lower<ToSpace>};
}

} // namespace

// DepthToSpace: y[n, c, h b + i, w b + j] = x[n, (i b + j) C' + c, h, w]
// (DCR) or x[n, c b^2 + i b + j, h, w] (CRD): y walked as [N, C', H, b, W, b].
// SpaceToDepth: y[n, (i b + j) C + c, h, w] = x[n, c, h b + i, w b + j]: y
// walked as [N, b, b, C, H', W'].
Expected<SpaceDepthCopy> spaceDepthCopy(const Node &node, const Shape &in, bool toSpace) {
  if (in.size() != 4)
    return Status::error(fmt::format("expects NCHW data (rank 4), got rank {}", in.size()));
  int64_t b = node.getInt("blocksize", 0);
  if (b <= 0)
    return Status::error(fmt::format("blocksize must be positive, got {}", b));
  const Dim &N = in[0], &C = in[1], &H = in[2], &W = in[3];
  NCHWStrides s{C * H * W, H * W, W, Dim(1)};
  if (toSpace) {
    if (!mod(C, b * b).is(0))
      return Status::error(
          fmt::format("channels ({}) are not a multiple of blocksize^2 ({})", C.str(), b * b));
    Dim channels = floorDiv(C, b * b);
    bool crd = node.getString("mode", "DCR") == "CRD";
    if (!crd && node.getString("mode", "DCR") != "DCR")
      return Status::error(
          fmt::format("mode must be DCR or CRD, got '{}'", node.getString("mode", "")));
    // Input channel of (c, i, j): DCR (i b + j) C' + c, CRD c b^2 + i b + j.
    Dim cStride = crd ? s.c * (b * b) : s.c;
    Dim iStride = crd ? s.c * b : s.c * channels * b;
    Dim jStride = crd ? s.c : s.c * channels;
    return SpaceDepthCopy{{N, channels, H, Dim(b), W, Dim(b)},
                          {s.n, cStride, s.h, iStride, s.w, jStride},
                          {N, channels, H * b, W * b}};
  }
  if (!mod(H, b).is(0) || !mod(W, b).is(0))
    return Status::error(
        fmt::format("spatial dims {}x{} are not multiples of blocksize {}", H.str(), W.str(), b));
  Dim outH = floorDiv(H, b), outW = floorDiv(W, b);
  return SpaceDepthCopy{{N, Dim(b), Dim(b), C, outH, outW},
                        {s.n, s.h, s.w, s.c, s.h * b, s.w * b},
                        {N, C * (b * b), outH, outW}};
}

OpDefinition spaceDepthDefinition(std::string_view name, bool toSpace) {
  return toSpace ? definition<true>(name) : definition<false>(name);
}

} // namespace cuvil::ops
