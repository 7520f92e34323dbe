// RoiAlign: each region of interest (rois [R, 4], x1 y1 x2 y2, over image
// batch_indices[r] of X [N, C, H, W]) pooled to output_height x
// output_width bins, each the average (or, `mode` max, the largest
// weighted corner, as ONNX Runtime computes it) of a grid of bilinearly
// interpolated points: sampling_ratio a side, or adaptive (0). Coordinates
// are scaled by spatial_scale and, with coordinate_transformation_mode
// half_pixel, shifted by half a pixel; output_half_pixel (opset 10's
// behaviour, which the importer gives older models) makes every roi at
// least 1 x 1. A batch index outside [0, N) is refused at run time. f32.
#include "OpSupport.h"
#include "cuvil/kernels/Sampling.h"

#include <cmath>

namespace cuvil::ops {
namespace {

struct Settings {
  int64_t height, width, samplingRatio;
  bool max, halfPixel;
  float scale;
};

Expected<Settings> settings(const Node &node) {
  Settings s{node.getInt("output_height"),
             node.getInt("output_width"),
             node.getInt("sampling_ratio"),
             false,
             false,
             node.getFloat("spatial_scale")};
  std::string mode = node.getString("mode"),
              coordinates = node.getString("coordinate_transformation_mode");
  if (mode != "avg" && mode != "max")
    return Status::error(fmt::format("mode '{}' is not avg or max", mode));
  if (coordinates != "half_pixel" && coordinates != "output_half_pixel")
    return Status::error(fmt::format(
        "coordinate_transformation_mode '{}' is not half_pixel or output_half_pixel", coordinates));
  if (s.height < 1 || s.width < 1 || s.samplingRatio < 0)
    return Status::error(fmt::format("output {} x {} must be positive, sampling_ratio {} not "
                                     "negative",
                                     s.height, s.width, s.samplingRatio));
  s.max = mode == "max";
  s.halfPixel = coordinates == "half_pixel";
  return s;
}

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0), &rois = ctx.inputShape(1), &indices = ctx.inputShape(2);
  if (ctx.inputDType(0) != DType::F32 || ctx.inputDType(1) != DType::F32)
    return ctx.error("X and rois must be f32, are {} and {}", dtypeName(ctx.inputDType(0)),
                     dtypeName(ctx.inputDType(1)));
  if (ctx.inputDType(2) != DType::I64)
    return ctx.error("batch_indices must be i64, is {}", dtypeName(ctx.inputDType(2)));
  if (x.size() != 4)
    return ctx.error("X must be [N, C, H, W], has rank {}", x.size());
  if (rois.size() != 2 || !rois[1].is(4) || indices.size() != 1 || !(indices[0] == rois[0]))
    return ctx.error("rois [{}] and batch_indices [{}] must be [R, 4] and [R]", shapeToString(rois),
                     shapeToString(indices));
  Expected<Settings> s = settings(ctx.node());
  CUVIL_TRY(s.status());
  ctx.setOutput(0, TensorType{DType::F32, {rois[0], x[1], s->height, s->width}});
  return Status::success();
}

// One sampling point, ONNX Runtime's rule: 0 beyond a pixel outside the
// map, clamped onto it within; the bilinear corners otherwise. Max mode
// takes the largest weighted corner.
double samplePoint(const Tensor &x, int64_t plane, int64_t H, int64_t W, double yy, double xx,
                   bool max) {
  if (!(yy >= -1 && yy <= double(H) && xx >= -1 && xx <= double(W)))
    return 0;
  yy = std::max(yy, 0.0);
  xx = std::max(xx, 0.0);
  int64_t y0 = std::min(int64_t(yy), H - 1), x0 = std::min(int64_t(xx), W - 1);
  int64_t y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
  double ly = y0 == H - 1 ? 0 : yy - double(y0), lx = x0 == W - 1 ? 0 : xx - double(x0);
  double corners[4] = {(1 - ly) * (1 - lx) * x.getDouble(plane + y0 * W + x0),
                       (1 - ly) * lx * x.getDouble(plane + y0 * W + x1),
                       ly * (1 - lx) * x.getDouble(plane + y1 * W + x0),
                       ly * lx * x.getDouble(plane + y1 * W + x1)};
  return max ? *std::max_element(corners, corners + 4)
             : corners[0] + corners[1] + corners[2] + corners[3];
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0], &rois = *in[1], &indices = *in[2];
  Settings s = *settings(node);
  int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), R = rois.dim(0);
  double shift = s.halfPixel ? 0.5 : 0.0;
  for (int64_t r = 0; r < R; ++r) {
    int64_t image = indices.getInt(r);
    if (image < 0 || image >= N)
      return Status::error(fmt::format("batch index {} is outside [0, {})", image, N));
    double startW = rois.getDouble(r * 4) * s.scale - shift;
    double startH = rois.getDouble(r * 4 + 1) * s.scale - shift;
    double roiW = rois.getDouble(r * 4 + 2) * s.scale - shift - startW;
    double roiH = rois.getDouble(r * 4 + 3) * s.scale - shift - startH;
    if (!s.halfPixel) {
      roiW = std::max(roiW, 1.0);
      roiH = std::max(roiH, 1.0);
    }
    double binH = roiH / double(s.height), binW = roiW / double(s.width);
    auto side = [&](double extent, int64_t bins) {
      double points = std::ceil(extent / double(bins));
      return s.samplingRatio > 0 ? s.samplingRatio
                                 : (points > 0 ? int64_t(std::min(points, 1e9)) : 0);
    };
    // An empty map has nothing to read: every bin is 0.
    int64_t gridH = H * W == 0 ? 0 : side(roiH, s.height), gridW = side(roiW, s.width);
    for (int64_t c = 0; c < C; ++c)
      for (int64_t ph = 0; ph < s.height; ++ph)
        for (int64_t pw = 0; pw < s.width; ++pw) {
          double acc = 0;
          for (int64_t iy = 0; iy < gridH; ++iy)
            for (int64_t ix = 0; ix < gridW; ++ix) {
              double v = samplePoint(
                  x, (image * C + c) * H * W, H, W,
                  startH + double(ph) * binH + (double(iy) + 0.5) * binH / double(gridH),
                  startW + double(pw) * binW + (double(ix) + 0.5) * binW / double(gridW), s.max);
              acc = s.max ? (iy == 0 && ix == 0 ? v : std::max(acc, v)) : acc + v;
            }
          if (!s.max && gridH * gridW > 0)
            acc /= double(gridH * gridW);
          out[0].setDouble(((r * C + c) * s.height + ph) * s.width + pw, acc);
        }
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Shape &x = node.input(0)->type().shape;
  Settings s = *settings(node);
  ParamBlock<cuvil_roi_align_params> params;
  params.set(params->batch, x[0]);
  params.set(params->channels, x[1]);
  params.set(params->height, x[2]);
  params.set(params->width, x[3]);
  params->pooled_height = s.height;
  params->pooled_width = s.width;
  params->sampling_ratio = s.samplingRatio;
  params->max_mode = s.max;
  params->half_pixel = s.halfPixel;
  params->spatial_scale = s.scale;
  Dim rois = node.input(1)->type().shape[0];
  return ctx.callKernel(
      kRoiAlignKernel,
      {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
       KernelArg::pointer(node.input(2)), KernelArg::pointer(node.output(0)),
       KernelArg::error({fmt::format("batch index {{}} is outside [0, {})", x[0].str())}),
       KernelArg::params(params)},
      rois * s.height);
}

} // namespace

extern const OpDefinition kRoiAlignOp = {
    OpSchema{
        "RoiAlign",
        3,
        3,
        1,
        1,
        {{"coordinate_transformation_mode", AttrKind::String, Attribute(std::string("half_pixel"))},
         {"mode", AttrKind::String, Attribute(std::string("avg"))},
         {"output_height", AttrKind::Int, Attribute(int64_t(1))},
         {"output_width", AttrKind::Int, Attribute(int64_t(1))},
         {"sampling_ratio", AttrKind::Int, Attribute(int64_t(0))},
         {"spatial_scale", AttrKind::Float, Attribute(1.0f)}},
        infer,
        eval},
    lower};

} // namespace cuvil::ops
