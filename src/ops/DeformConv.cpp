// DeformConv (opset 19; torchvision.ops.deform_conv2d, DCNv1 without mask
// and DCNv2 with one): a 2-D convolution of X [N, C, H, W] with W [OC,
// C/group, kh, kw] and optional B [OC] whose taps read X at points moved by
// offset [N, offset_group x 2 x taps, OH, OW] ((dy, dx) per tap and output
// pixel, the channels split into offset_group groups that share them),
// sampled bilinearly with zeros outside the map and scaled by the optional
// mask [N, offset_group x taps, OH, OW]:
//   y[n, oc, oh, ow] = B[oc] + sum over c of oc's group, tap (i, j) of
//     W[oc, c % Cg, i, j] * mask * bilinear(X[n, c], oh * sh - pt + i * dh + dy,
//                                                    ow * sw - pl + j * dw + dx)
// canonicalize rewrites it into cuvil.DeformIm2Col's columns and a MatMul
// (CanonicalizeGeometry.cpp). W's dims must be known at compile time; N,
// H and W may be symbolic. Only 2-D, as ONNX's reference and ONNX Runtime.
// f32.
#include "DeformConvCommon.h"

#include <cmath>

namespace cuvil::ops {
namespace {

constexpr size_t kX = 0, kW = 1, kOffset = 2, kB = 3, kMask = 4;

// The window's kernel: W's spatial dims, which kernel_shape must match.
Expected<std::vector<int64_t>> kernelOf(const InferContext &ctx) {
  const Shape &w = ctx.inputShape(kW);
  if (ctx.inputDType(kW) != DType::F32 || w.size() != 4 || !isStatic(w))
    return ctx.error("W must be f32 [OC, C/group, kh, kw] known at compile time, is {} [{}]",
                     dtypeName(ctx.inputDType(kW)), shapeToString(w));
  std::vector<int64_t> kernel = {w[2].constant(), w[3].constant()};
  if (ctx.node().hasAttr("kernel_shape") && ctx.node().getInts("kernel_shape") != kernel)
    return ctx.error("kernel_shape [{}] is not W's [{}]",
                     fmt::join(ctx.node().getInts("kernel_shape"), ", "), fmt::join(kernel, ", "));
  return kernel;
}

Expected<DeformGeometry> geometry(const InferContext &ctx) {
  Expected<std::vector<int64_t>> kernel = kernelOf(ctx);
  CUVIL_TRY(kernel.status());
  Expected<DeformGeometry> g = deformGeometry(ctx, ctx.inputShape(kX), *kernel, kOffset, kMask);
  CUVIL_TRY(g.status());
  const Shape &w = ctx.inputShape(kW);
  const int64_t outChannels = w[0].constant();
  if (w[1].constant() * g->groups != g->channels || outChannels % g->groups != 0)
    return ctx.error("W [{}] does not fit X's {} channels in {} groups", shapeToString(w),
                     g->channels, g->groups);
  if (ctx.hasInput(kB) &&
      (ctx.inputDType(kB) != DType::F32 || !(ctx.inputShape(kB) == Shape{Dim(outChannels)})))
    return ctx.error("B must be f32 [{}], is {} [{}]", outChannels, dtypeName(ctx.inputDType(kB)),
                     shapeToString(ctx.inputShape(kB)));
  return g;
}

Status infer(InferContext &ctx) {
  Expected<DeformGeometry> g = geometry(ctx);
  CUVIL_TRY(g.status());
  ctx.setOutput(0, TensorType{DType::F32,
                              {ctx.inputShape(kX)[0], ctx.inputShape(kW)[0], g->window.output[0],
                               g->window.output[1]}});
  return Status::success();
}

// Bilinear with zeros outside, in doubles (ONNX's reference: GridSample
// with align_corners over pixel coordinates).
double sample(const Tensor &x, int64_t plane, int64_t H, int64_t W, double y, double xx) {
  if (!(y > -1 && y < double(H) && xx > -1 && xx < double(W)))
    return 0;
  const double fy = std::floor(y), fx = std::floor(xx);
  double sum = 0;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < 2; ++c) {
      const int64_t row = int64_t(fy) + r, column = int64_t(fx) + c;
      if (row >= 0 && row < H && column >= 0 && column < W)
        sum += (r ? y - fy : 1 - (y - fy)) * (c ? xx - fx : 1 - (xx - fx)) *
               x.getDouble(plane + row * W + column);
    }
  return sum;
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  InferContext ctx(node);
  const DeformGeometry g = *geometry(ctx);
  const Tensor &x = *in[kX], &w = *in[kW], &offset = *in[kOffset];
  const Tensor *bias = in.size() > kB ? in[kB] : nullptr,
               *mask = in.size() > kMask ? in[kMask] : nullptr;
  const WindowGeometry &win = g.window;
  const int64_t N = x.dim(0), C = g.channels, H = x.dim(2), W = x.dim(3), OC = w.dim(0);
  const int64_t OH = out[0].dim(2), OW = out[0].dim(3), KW = win.kernel[1], T = g.taps;
  const int64_t Cg = C / g.groups, OCg = OC / g.groups, Cog = C / g.offsetGroups;
  const int64_t PT = win.padsBegin[0].constant(), PL = win.padsBegin[1].constant();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oc = 0; oc < OC; ++oc)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double sum = bias ? bias->getDouble(oc) : 0;
          for (int64_t cl = 0; cl < Cg; ++cl) {
            const int64_t c = oc / OCg * Cg + cl, og = c / Cog;
            for (int64_t tap = 0; tap < T; ++tap) {
              const int64_t i = tap / KW, j = tap % KW;
              auto at = [&](int64_t channel) {
                return ((n * offset.dim(1) + channel) * OH + oh) * OW + ow;
              };
              const double dy = offset.getDouble(at(og * 2 * T + 2 * tap));
              const double dx = offset.getDouble(at(og * 2 * T + 2 * tap + 1));
              const double scale =
                  mask ? mask->getDouble(((n * g.offsetGroups * T + og * T + tap) * OH + oh) * OW +
                                         ow)
                       : 1.0;
              const double y = double(oh * win.strides[0] - PT + i * win.dilations[0]) + dy;
              const double xx = double(ow * win.strides[1] - PL + j * win.dilations[1]) + dx;
              sum += w.getDouble((oc * Cg + cl) * T + tap) * scale *
                     sample(x, (n * C + c) * H * W, H, W, y, xx);
            }
          }
          out[0].setDouble(((n * OC + oc) * OH + oh) * OW + ow, sum);
        }
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites DeformConv");
}

} // namespace

extern const OpDefinition kDeformConvOp = {
    OpSchema{"DeformConv", 3, 5, 1, 1, deformAttributes(), infer, eval}, lower};

} // namespace cuvil::ops
