// GridSample: x [N, C, H, W] (or [N, C, D, H, W]) sampled at the points of
// grid [N, OH, OW, 2] (or [N, OD, OH, OW, 3]), normalised coordinates
// (x, y(, z)) in [-1, 1]: `mode` linear, nearest or cubic (2-D only; the
// opset-16 names bilinear and bicubic become these on import),
// `padding_mode` zeros, border or reflection for taps outside the image,
// `align_corners` placing -1 and 1 on the edge pixels' centres rather than
// the image's borders. The kernel's header gives the rules, which follow
// ONNX Runtime's (a tap's index is padded, not its coordinate). f32, as
// ONNX Runtime takes.
#include "OpSupport.h"
#include "cuvil/kernels/Sampling.h"

#include <cmath>

namespace cuvil::ops {
namespace {

struct Modes {
  int64_t mode, padding;
};

Expected<Modes> modes(const Node &node) {
  static const std::pair<std::string_view, int64_t> kModes[] = {
      {"linear", CUVIL_GRID_SAMPLE_LINEAR},
      {"nearest", CUVIL_GRID_SAMPLE_NEAREST},
      {"cubic", CUVIL_GRID_SAMPLE_CUBIC}};
  static const std::pair<std::string_view, int64_t> kPaddings[] = {
      {"zeros", CUVIL_GRID_SAMPLE_ZEROS},
      {"border", CUVIL_GRID_SAMPLE_BORDER},
      {"reflection", CUVIL_GRID_SAMPLE_REFLECTION}};
  std::string mode = node.getString("mode"), padding = node.getString("padding_mode");
  Modes result{-1, -1};
  for (const auto &[name, value] : kModes)
    if (name == mode)
      result.mode = value;
  for (const auto &[name, value] : kPaddings)
    if (name == padding)
      result.padding = value;
  if (result.mode < 0)
    return Status::error(
        fmt::format("mode '{}' is not linear, nearest or cubic (bilinear, bicubic)", mode));
  if (result.padding < 0)
    return Status::error(
        fmt::format("padding_mode '{}' is not zeros, border or reflection", padding));
  return result;
}

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0), &grid = ctx.inputShape(1);
  if (ctx.inputDType(0) != DType::F32 || ctx.inputDType(1) != DType::F32)
    return ctx.error("X and grid must be f32, are {} and {}", dtypeName(ctx.inputDType(0)),
                     dtypeName(ctx.inputDType(1)));
  if (x.size() != 4 && x.size() != 5)
    return ctx.error("X must be [N, C, H, W] or [N, C, D, H, W], has rank {}", x.size());
  size_t spatial = x.size() - 2;
  if (grid.size() != x.size() || !grid.back().is(int64_t(spatial)) || !(grid[0] == x[0]))
    return ctx.error("grid is [{}]; for X [{}] it must be [{}, ..., {}] of rank {}",
                     shapeToString(grid), shapeToString(x), x[0].str(), spatial, x.size());
  Expected<Modes> m = modes(ctx.node());
  CUVIL_TRY(m.status());
  if (m->mode == CUVIL_GRID_SAMPLE_CUBIC && spatial == 3)
    return ctx.error("cubic mode samples 2-D images only");
  Shape out = {x[0], x[1]};
  out.insert(out.end(), grid.begin() + 1, grid.end() - 1);
  ctx.setOutput(0, TensorType{DType::F32, out});
  return Status::success();
}

// The reference's taps of one coordinate g along an axis of `extent`.
std::vector<std::pair<int64_t, double>> taps(double g, int64_t extent, const Modes &m, bool align) {
  double c = align ? (g + 1) / 2 * double(extent - 1) : ((g + 1) * double(extent) - 1) / 2;
  // As the kernel: far enough that padding decides the same, and no NaN
  // becomes an index.
  constexpr double kLimit = 1073741824.0;
  c = std::isnan(c) ? -kLimit : std::clamp(c, -kLimit, kLimit);
  std::vector<std::pair<int64_t, double>> result;
  double f = std::floor(c), t = c - f;
  if (m.mode == CUVIL_GRID_SAMPLE_NEAREST) {
    result = {{int64_t(std::nearbyint(c)), 1.0}};
  } else if (m.mode == CUVIL_GRID_SAMPLE_LINEAR) {
    result = {{int64_t(f), 1 - t}, {int64_t(f) + 1, t}};
  } else {
    // Keys' cubic convolution, a = -0.75, at distances 1 + t, t, 1 - t, 2 - t.
    auto near = [](double d) { return (1.25 * d - 2.25) * d * d + 1; };
    auto far = [](double d) { return ((-0.75 * d + 3.75) * d - 6) * d + 3; };
    for (int64_t k = -1; k <= 2; ++k) {
      double d = std::fabs(t - double(k));
      result.push_back({int64_t(f) + k, d <= 1 ? near(d) : far(d)});
    }
  }
  for (auto &[index, weight] : result) {
    if (index >= 0 && index < extent)
      continue;
    if (m.padding == CUVIL_GRID_SAMPLE_ZEROS) {
      weight = 0;
      index = 0;
    } else if (m.padding == CUVIL_GRID_SAMPLE_BORDER || extent == 1) {
      index = std::clamp<int64_t>(index, 0, extent - 1);
    } else {
      int64_t period = align ? 2 * (extent - 1) : 2 * extent;
      int64_t r = ((index % period) + period) % period;
      index = align ? (r <= extent - 1 ? r : period - r) : (r < extent ? r : period - 1 - r);
    }
  }
  return result;
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0], &grid = *in[1];
  Modes m = *modes(node);
  bool align = node.getInt("align_corners") != 0;
  size_t spatial = x.shape().size() - 2;
  std::vector<int64_t> extents = x.dims(); // [D,] H, W after erasing N, C
  extents.erase(extents.begin(), extents.begin() + 2);
  int64_t N = x.dim(0), C = x.dim(1), image = x.numElements() / std::max<int64_t>(N * C, 1);
  int64_t points = grid.numElements() / std::max<int64_t>(N * int64_t(spatial), 1);
  if (image == 0)
    return Status::success(); // an empty image samples zeros
  for (int64_t n = 0; n < N; ++n)
    for (int64_t point = 0; point < points; ++point) {
      // Axis a of the image is coordinate spatial - 1 - a of the point.
      std::vector<std::vector<std::pair<int64_t, double>>> axes;
      for (size_t a = 0; a < spatial; ++a)
        axes.push_back(
            taps(grid.getDouble((n * points + point) * int64_t(spatial) + int64_t(spatial - 1 - a)),
                 extents[a], m, align));
      for (int64_t c = 0; c < C; ++c) {
        double sum = 0;
        std::vector<size_t> k(spatial, 0);
        do {
          int64_t offset = 0;
          double weight = 1;
          for (size_t a = 0; a < spatial; ++a) {
            offset = offset * extents[a] + axes[a][k[a]].first;
            weight *= axes[a][k[a]].second;
          }
          if (weight != 0)
            sum += weight * x.getDouble((n * C + c) * image + offset);
          size_t a = spatial;
          while (a > 0 && ++k[a - 1] == axes[a - 1].size())
            k[--a] = 0;
          if (a == 0)
            break;
        } while (true);
        out[0].setDouble((n * C + c) * points + point, sum);
      }
    }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  const Shape &shape = x->type().shape, &out = node.output(0)->type().shape;
  bool volumetric = shape.size() == 5;
  Modes m = *modes(node);
  ParamBlock<cuvil_grid_sample_params> params;
  params.set(params->channels, shape[1]);
  params->spatial = volumetric ? 3 : 2;
  params.set(params->in_depth, volumetric ? shape[2] : Dim(1));
  params.set(params->in_height, shape[shape.size() - 2]);
  params.set(params->in_width, shape.back());
  params.set(params->out_depth, volumetric ? out[2] : Dim(1));
  params.set(params->out_height, out[out.size() - 2]);
  params.set(params->out_width, out.back());
  params->mode = m.mode;
  params->padding = m.padding;
  params->align_corners = node.getInt("align_corners") != 0;
  Dim rows = out[0] * (volumetric ? out[2] : Dim(1)) * out[out.size() - 2];
  return ctx.callKernel(kGridSampleKernel,
                        {KernelArg::pointer(x), KernelArg::pointer(node.input(1)),
                         KernelArg::pointer(node.output(0)), KernelArg::params(params)},
                        rows);
}

} // namespace

extern const OpDefinition kGridSampleOp = {
    OpSchema{"GridSample",
             2,
             2,
             1,
             1,
             {{"align_corners", AttrKind::Int, Attribute(int64_t(0))},
              {"mode", AttrKind::String, Attribute(std::string("linear"))},
              {"padding_mode", AttrKind::String, Attribute(std::string("zeros"))}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
