// MaxRoiPool (opset 1; Caffe's RoI pooling, detectors of Fast R-CNN's
// lineage): each roi of rois [R, 5] (batch index, x1, y1, x2, y2, in pixels
// of the input image) is scaled by spatial_scale onto X [N, C, H, W],
// rounded to whole pixels, and max-pooled to pooled_shape bins; a bin that
// falls outside the map is 0. The rules are ONNX Runtime's (the spec says
// no more than "max pooling across each RoI"): include/cuvil/kernels/
// Sampling.h. A batch index outside [0, N) is refused at run time. f32.
#include "OpSupport.h"
#include "cuvil/kernels/Sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cuvil::ops {
namespace {

struct Settings {
  int64_t height, width;
  float scale;
};

Expected<Settings> settings(const Node &node) {
  std::vector<int64_t> pooled = node.getInts("pooled_shape");
  if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1)
    return Status::error(
        fmt::format("pooled_shape [{}] must be two positive extents", fmt::join(pooled, ", ")));
  return Settings{pooled[0], pooled[1], node.getFloat("spatial_scale")};
}

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0), &rois = ctx.inputShape(1);
  if (ctx.inputDType(0) != DType::F32 || ctx.inputDType(1) != DType::F32)
    return ctx.error("X and rois must be f32, are {} and {}", dtypeName(ctx.inputDType(0)),
                     dtypeName(ctx.inputDType(1)));
  if (x.size() != 4)
    return ctx.error("X must be [N, C, H, W], has rank {}", x.size());
  if (rois.size() != 2 || !rois[1].is(5))
    return ctx.error("rois [{}] must be [R, 5]", shapeToString(rois));
  Expected<Settings> s = settings(ctx.node());
  CUVIL_TRY(s.status());
  ctx.setOutput(0, TensorType{DType::F32, {rois[0], x[1], s->height, s->width}});
  return Status::success();
}

// A corner in pixels: the scaled coordinate rounded half away from zero.
int64_t corner(double value, float scale) {
  return int64_t(std::round(std::clamp(double(float(value) * scale), -1e9, 1e9)));
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0], &rois = *in[1];
  Settings s = *settings(node);
  int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), R = rois.dim(0);
  for (int64_t r = 0; r < R; ++r) {
    double batchIndex = rois.getDouble(r * 5);
    if (!(batchIndex > -1 && batchIndex < double(N)))
      return Status::error(fmt::format("batch index {} is outside [0, {})", batchIndex, N));
    int64_t image = int64_t(batchIndex);
    int64_t startW = corner(rois.getDouble(r * 5 + 1), s.scale);
    int64_t startH = corner(rois.getDouble(r * 5 + 2), s.scale);
    int64_t roiW = std::max<int64_t>(corner(rois.getDouble(r * 5 + 3), s.scale) - startW + 1, 1);
    int64_t roiH = std::max<int64_t>(corner(rois.getDouble(r * 5 + 4), s.scale) - startH + 1, 1);
    float binH = float(roiH) / float(s.height), binW = float(roiW) / float(s.width);
    for (int64_t ph = 0; ph < s.height; ++ph)
      for (int64_t pw = 0; pw < s.width; ++pw) {
        int64_t h0 = std::clamp<int64_t>(int64_t(std::floor(float(ph) * binH)) + startH, 0, H);
        int64_t h1 = std::clamp<int64_t>(int64_t(std::ceil(float(ph + 1) * binH)) + startH, 0, H);
        int64_t w0 = std::clamp<int64_t>(int64_t(std::floor(float(pw) * binW)) + startW, 0, W);
        int64_t w1 = std::clamp<int64_t>(int64_t(std::ceil(float(pw + 1) * binW)) + startW, 0, W);
        for (int64_t c = 0; c < C; ++c) {
          double best = h1 <= h0 || w1 <= w0 ? 0.0 : -double(std::numeric_limits<float>::max());
          int64_t plane = (image * C + c) * H * W;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w)
              best = x.getDouble(plane + h * W + w) > best ? x.getDouble(plane + h * W + w) : best;
          out[0].setDouble(((r * C + c) * s.height + ph) * s.width + pw, best);
        }
      }
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  static const KernelRef kMaxRoiPool = CUVIL_KERNEL_REF(cuvil_max_roi_pool_f32);
  const Shape &x = node.input(0)->type().shape;
  Settings s = *settings(node);
  ParamBlock<cuvil_max_roi_pool_params> params;
  params.set(params->batch, x[0]);
  params.set(params->channels, x[1]);
  params.set(params->height, x[2]);
  params.set(params->width, x[3]);
  params->pooled_height = s.height;
  params->pooled_width = s.width;
  params->spatial_scale = s.scale;
  Dim rois = node.input(1)->type().shape[0];
  return ctx.callKernel(
      kMaxRoiPool,
      {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
       KernelArg::pointer(node.output(0)),
       KernelArg::error({fmt::format("batch index {{}} is outside [0, {})", x[0].str())}),
       KernelArg::params(params)},
      rois * s.height);
}

} // namespace

extern const OpDefinition kMaxRoiPoolOp = {
    OpSchema{"MaxRoiPool",
             2,
             2,
             1,
             1,
             {{"pooled_shape", AttrKind::Ints, std::nullopt, /*required=*/true},
              {"spatial_scale", AttrKind::Float, Attribute(1.0f)}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
