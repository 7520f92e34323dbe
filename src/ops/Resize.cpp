// Resize: each output element is a weighted sum of the input elements
// around the coordinate its position maps to, axis by axis
// (include/cuvil/kernels/Resize.h gives the transforms and the taps).
// Modes nearest (any element type: a gather), linear and cubic (f32, with
// antialias for downsampling); every coordinate_transformation_mode;
// `scales` or `sizes` over every axis or the opset-18 `axes`;
// keep_aspect_ratio_policy. Resize-10 and Upsample come here through the
// opset adapters.
//
// Output extents: `sizes` as given, as dims (a shape computation on
// symbolic dims works); a scale s gives floor(in * s) with the product in
// float, as ONNX Runtime and ONNX's shape inference compute it. On a
// symbolic dim that must be an expression: in * s for an integer s, else
// floordiv(in * m, 2^k) for s = m / 2^k, which the shape rule checks is the
// float result over the dim's whole range. keep_aspect_ratio_policy other
// than stretch needs static dims. Where a scale was given,
// half_pixel_symmetric sees the fractional output length scale * in;
// align_corners and tf_crop_and_resize see the output's length (the spec's
// length_resized, as ONNX Runtime; the ONNX reference and backend tests
// use the fraction there too).
#include "cuvil/kernels/Resize.h"
#include "OpSupport.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace cuvil::ops {
namespace {

// Attribute values in the order of the kernel's enums.
constexpr std::array<std::string_view, 3> kModes = {"nearest", "linear", "cubic"};
constexpr std::array<std::string_view, 7> kCoordinateModes = {
    "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
    "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
constexpr std::array<std::string_view, 4> kNearestModes = {"round_prefer_floor",
                                                           "round_prefer_ceil", "floor", "ceil"};
constexpr std::array<std::string_view, 3> kPolicies = {"stretch", "not_larger", "not_smaller"};

template <size_t N>
Expected<int64_t> enumAttribute(const Node &node, const char *name,
                                const std::array<std::string_view, N> &values) {
  std::string given = node.getString(name);
  auto it = std::find(values.begin(), values.end(), given);
  if (it == values.end())
    return Status::error(fmt::format("{} '{}' is not one of {}", name, given,
                                     fmt::join(values.begin(), values.end(), ", ")));
  return int64_t(it - values.begin());
}

// One axis of the input.
struct AxisPlan {
  Dim in, out;
  bool resized = false;
  float scale = 0; // given (scales, or the aspect-ratio policy); 0: out / in
  float roiStart = 0, roiEnd = 1;
};

struct ResizeGeometry {
  std::vector<AxisPlan> axes;
  int64_t mode, coordinate, rounding;
  bool antialias, excludeOutside;
  float cubicA, extrapolation;

  Shape outShape() const {
    Shape shape;
    for (const AxisPlan &axis : axes)
      shape.push_back(axis.out);
    return shape;
  }
};

// floor(in * scale), the product in float.
int64_t scaledExtent(int64_t in, float scale) { return int64_t(std::floor(float(in) * scale)); }

// The same on a dim: an expression, checked against the float result over
// the dim's range.
Expected<Dim> scaledDim(const Dim &in, float scale) {
  if (in.isConstant())
    return Dim(scaledExtent(in.constant(), scale));
  int exponent;
  double mantissa = std::frexp(double(scale), &exponent);
  // scale = numerator / 2^shift exactly (a float has 24 significant bits).
  int64_t numerator = int64_t(std::ldexp(mantissa, 24));
  int shift = 24 - exponent;
  while (shift > 0 && numerator % 2 == 0) {
    numerator /= 2;
    --shift;
  }
  Dim expression =
      shift <= 0 ? in * (numerator << -shift) : floorDiv(in * numerator, Dim(int64_t(1) << shift));
  constexpr int64_t kMaxChecked = int64_t(1) << 22;
  if (in.max() - in.min() > kMaxChecked || shift > 40)
    return Status::error(fmt::format("scale {} of symbolic dim {} (range [{}, {}]): the output "
                                     "extent floor(dim * scale) cannot be checked; give sizes",
                                     scale, in, in.min(), in.max()));
  for (int64_t v = in.min(); v <= in.max(); ++v) {
    int64_t exact = shift <= 0 ? v * (numerator << -shift) : (v * numerator) >> shift;
    if (exact != scaledExtent(v, scale))
      return Status::error(fmt::format(
          "scale {} of symbolic dim {}: floor(dim * scale) in float is {} at dim = {}, not the "
          "exact {}, so it has no expression; give sizes, or a scale that is a power of two or "
          "an integer",
          scale, in, scaledExtent(v, scale), v, exact));
  }
  return expression;
}

// Input `index` as floats: a constant, or nullopt when omitted or empty.
Expected<std::optional<std::vector<float>>> floatInput(const Node &node, size_t index,
                                                       const char *what) {
  const Value *value = node.input(index);
  if (!value ||
      (value->hasType() && value->type().isStatic() && value->type().numElements().constant() == 0))
    return std::optional<std::vector<float>>();
  Expected<std::vector<double>> reals = constantReals(node, index, what);
  CUVIL_TRY(reals.status());
  return std::optional(std::vector<float>(reals->begin(), reals->end()));
}

bool hasElements(const Node &node, size_t index) {
  const Value *value = node.input(index);
  return value && !(value->hasType() && value->type().numElements().is(0));
}

// Whether output coordinate j reads input j on this axis: the same extent
// at scale 1, not cropped. ONNX Runtime leaves such an axis alone under
// every transform, tf_half_pixel_for_nn (which would move it by half an
// element) included.
bool isIdentity(const AxisPlan &axis, int64_t coordinate) {
  bool unitScale = axis.scale == 1.0f || (axis.scale == 0 && axis.out == axis.in);
  bool cropped = coordinate == CUVIL_RESIZE_TF_CROP_AND_RESIZE &&
                 (axis.roiStart != 0.0f || axis.roiEnd != 1.0f);
  return unitScale && axis.out == axis.in && !cropped;
}

// Output extents and scales of the axes in `axes` from sizes under
// keep_aspect_ratio_policy `policy` (not stretch): one scale for them all,
// the smallest or largest of size / in.
Status applyAspectPolicy(std::vector<AxisPlan> &plans, const std::vector<int64_t> &axes,
                         const std::vector<Dim> &sizes, int64_t policy) {
  float scale = policy == 1 ? std::numeric_limits<float>::max() : 0.0f;
  for (size_t i = 0; i < axes.size(); ++i) {
    const Dim &in = plans[size_t(axes[i])].in;
    if (!in.isConstant() || !sizes[i].isConstant())
      return Status::error(fmt::format("keep_aspect_ratio_policy {} needs static input dims and "
                                       "sizes; axis {} is {} -> {}",
                                       kPolicies[size_t(policy)], axes[i], in, sizes[i]));
    float ratio = float(sizes[i].constant()) / float(in.constant());
    scale = policy == 1 ? std::min(scale, ratio) : std::max(scale, ratio);
  }
  for (int64_t axis : axes) {
    AxisPlan &plan = plans[size_t(axis)];
    plan.scale = scale;
    plan.out = int64_t(std::round(scale * float(plan.in.constant())));
  }
  return Status::success();
}

Expected<ResizeGeometry> geometry(const Node &node, const Shape &in) {
  ResizeGeometry g;
  Expected<int64_t> mode = enumAttribute(node, "mode", kModes);
  CUVIL_TRY(mode.status());
  Expected<int64_t> coordinate =
      enumAttribute(node, "coordinate_transformation_mode", kCoordinateModes);
  CUVIL_TRY(coordinate.status());
  Expected<int64_t> rounding = enumAttribute(node, "nearest_mode", kNearestModes);
  CUVIL_TRY(rounding.status());
  Expected<int64_t> policy = enumAttribute(node, "keep_aspect_ratio_policy", kPolicies);
  CUVIL_TRY(policy.status());
  g.mode = *mode;
  g.coordinate = *coordinate;
  g.rounding = *rounding;
  g.antialias = node.getInt("antialias") != 0;
  g.excludeOutside = node.getInt("exclude_outside") != 0;
  g.cubicA = node.getFloat("cubic_coeff_a");
  g.extrapolation = node.getFloat("extrapolation_value");
  if (g.antialias && g.mode == CUVIL_RESIZE_NEAREST)
    return Status::error("antialias applies to the linear and cubic modes, not nearest");
  int64_t rank = int64_t(in.size());
  std::vector<int64_t> axes;
  if (node.hasAttr("axes")) {
    Expected<std::vector<int64_t>> normalized = normalizeAxes(node.getInts("axes"), rank);
    CUVIL_TRY(normalized.status());
    axes = *normalized;
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  for (const Dim &dim : in)
    g.axes.push_back({dim, dim});

  bool scalesGiven = hasElements(node, 2), sizesGiven = hasElements(node, 3);
  if (scalesGiven == sizesGiven)
    return Status::error(scalesGiven ? "give scales or sizes, not both"
                                     : "one of scales and sizes must be given");
  if (g.coordinate == CUVIL_RESIZE_TF_CROP_AND_RESIZE) {
    Expected<std::optional<std::vector<float>>> roi = floatInput(node, 1, "roi");
    CUVIL_TRY(roi.status());
    if (!*roi || (*roi)->size() != 2 * axes.size())
      return Status::error(fmt::format("tf_crop_and_resize needs roi with {} values (a start "
                                       "and an end per axis)",
                                       2 * axes.size()));
    for (size_t i = 0; i < axes.size(); ++i) {
      g.axes[size_t(axes[i])].roiStart = (**roi)[i];
      g.axes[size_t(axes[i])].roiEnd = (**roi)[i + axes.size()];
    }
  }
  if (scalesGiven) {
    Expected<std::optional<std::vector<float>>> scales = floatInput(node, 2, "scales");
    CUVIL_TRY(scales.status());
    if ((*scales)->size() != axes.size())
      return Status::error(
          fmt::format("scales has {} values for {} axes", (*scales)->size(), axes.size()));
    for (size_t i = 0; i < axes.size(); ++i) {
      float scale = (**scales)[i];
      if (!(scale > 0.0f) || !std::isfinite(scale))
        return Status::error(fmt::format("scale {} of axis {} is not positive", scale, axes[i]));
      AxisPlan &plan = g.axes[size_t(axes[i])];
      Expected<Dim> out = scaledDim(plan.in, scale);
      CUVIL_TRY(out.status());
      plan.out = *out;
      plan.scale = scale;
    }
  } else {
    Expected<std::vector<Dim>> sizes = dimsInput(node, 3, "sizes");
    CUVIL_TRY(sizes.status());
    if (sizes->size() != axes.size())
      return Status::error(
          fmt::format("sizes has {} values for {} axes", sizes->size(), axes.size()));
    for (size_t i = 0; i < axes.size(); ++i) {
      if ((*sizes)[i].max() < 0)
        return Status::error(fmt::format("size {} of axis {} is negative", (*sizes)[i], axes[i]));
      g.axes[size_t(axes[i])].out = (*sizes)[i];
    }
    if (*policy != 0)
      CUVIL_TRY(applyAspectPolicy(g.axes, axes, *sizes, *policy));
  }
  for (size_t d = 0; d < g.axes.size(); ++d) {
    AxisPlan &plan = g.axes[d];
    if (plan.in.is(0) && !plan.out.is(0))
      return Status::error(
          fmt::format("axis {} is empty, so its output cannot have {} elements", d, plan.out));
    plan.resized = !isIdentity(plan, g.coordinate);
  }
  return g;
}

Status infer(InferContext &ctx) {
  Expected<ResizeGeometry> g = geometry(ctx.node(), ctx.inputShape(0));
  CUVIL_TRY(g.status());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), g->outShape()});
  return Status::success();
}

// ---------------------------------------------------------------------------
// Reference: per output element, the taps of each axis (as the kernel
// computes them, in float), summed over their product.

struct HostTaps {
  std::vector<int64_t> index;
  std::vector<float> weight;
  bool outside = false;
};

float originalCoordinate(const ResizeGeometry &g, const AxisPlan &a, int64_t j) {
  float x = float(j), in = float(a.in.constant()), out = float(a.out.constant());
  float scale = a.scale != 0 ? a.scale : out / in;
  float resized = a.scale != 0 ? a.scale * in : out;
  switch (g.coordinate) {
  case CUVIL_RESIZE_HALF_PIXEL_SYMMETRIC: {
    float offset = in / 2 * (1 - out / resized);
    return offset + (x + 0.5f) / scale - 0.5f;
  }
  case CUVIL_RESIZE_PYTORCH_HALF_PIXEL:
    return out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
  case CUVIL_RESIZE_ALIGN_CORNERS:
    return out == 1.0f ? 0.0f : x * (in - 1) / (out - 1);
  case CUVIL_RESIZE_ASYMMETRIC:
    return x / scale;
  case CUVIL_RESIZE_TF_HALF_PIXEL_FOR_NN:
    return (x + 0.5f) / scale;
  case CUVIL_RESIZE_TF_CROP_AND_RESIZE:
    return out == 1.0f ? (a.roiStart + a.roiEnd) * (in - 1) / 2
                       : a.roiStart * (in - 1) + x * (a.roiEnd - a.roiStart) * (in - 1) / (out - 1);
  default:
    return (x + 0.5f) / scale - 0.5f;
  }
}

float roundNearest(int64_t rounding, float x) {
  switch (rounding) {
  case CUVIL_RESIZE_FLOOR:
    return std::floor(x);
  case CUVIL_RESIZE_CEIL:
    return std::ceil(x);
  case CUVIL_RESIZE_ROUND_PREFER_CEIL:
    return std::round(x);
  default:
    return x == std::trunc(x) + 0.5f ? std::floor(x) : std::round(x);
  }
}

float filterWeight(const ResizeGeometry &g, float d) {
  d = std::fabs(d);
  if (g.mode == CUVIL_RESIZE_LINEAR)
    return d < 1.0f ? 1.0f - d : 0.0f;
  float a = g.cubicA;
  if (d < 1.0f)
    return ((a + 2.0f) * d - (a + 3.0f)) * d * d + 1.0f;
  return d < 2.0f ? (((d - 5.0f) * d + 8.0f) * d - 4.0f) * a : 0.0f;
}

HostTaps axisTaps(const ResizeGeometry &g, const AxisPlan &a, int64_t j) {
  if (!a.resized)
    return {{j}, {1.0f}};
  int64_t last = a.in.constant() - 1;
  float x = originalCoordinate(g, a, j);
  HostTaps taps;
  taps.outside = g.coordinate == CUVIL_RESIZE_TF_CROP_AND_RESIZE && (x < 0.0f || x > float(last));
  if (g.mode == CUVIL_RESIZE_NEAREST) {
    float clamped = std::clamp(x, -1.0f, float(last + 1));
    taps.index = {std::clamp<int64_t>(int64_t(roundNearest(g.rounding, clamped)), 0, last)};
    taps.weight = {1.0f};
    return taps;
  }
  float scale = a.scale != 0 ? a.scale : float(a.out.constant()) / float(a.in.constant());
  float s = g.antialias && scale < 1.0f ? scale : 1.0f;
  float support = (g.mode == CUVIL_RESIZE_LINEAR ? 1.0f : 2.0f) / s;
  x = std::clamp(x, -support - 1.0f, float(last + 1) + support);
  float total = 0;
  for (int64_t i = int64_t(std::floor(x - support)) + 1; float(i) < x + support; ++i) {
    float w = filterWeight(g, (float(i) - x) * s);
    if (g.excludeOutside && (i < 0 || i > last))
      w = 0;
    taps.index.push_back(std::clamp<int64_t>(i, 0, last));
    taps.weight.push_back(w);
    total += w;
  }
  if ((g.antialias || g.excludeOutside) && total != 0)
    for (float &w : taps.weight)
      w /= total;
  return taps;
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  Expected<ResizeGeometry> g = geometry(node, x.shape());
  CUVIL_TRY(g.status());
  bool interpolate = g->mode != CUVIL_RESIZE_NEAREST;
  if (interpolate && x.dtype() != DType::F32)
    return Status::error(fmt::format("{} interpolation of {} is not supported (f32 only)",
                                     kModes[size_t(g->mode)], dtypeName(x.dtype())));
  size_t size = dtypeSize(x.dtype());
  Tensor fill = Tensor::scalarF32(g->extrapolation).castTo(x.dtype());
  std::vector<int64_t> strides = staticStrides(x.shape()), outDims = out[0].dims();
  std::vector<int64_t> index(outDims.size(), 0);
  for (int64_t flat = 0, n = out[0].numElements(); flat < n; ++flat) {
    // Every (input offset, weight) the element reads.
    std::vector<std::pair<int64_t, double>> reads = {{0, 1.0}};
    bool outside = false;
    for (size_t d = 0; d < outDims.size(); ++d) {
      HostTaps taps = axisTaps(*g, g->axes[d], index[d]);
      outside |= taps.outside;
      std::vector<std::pair<int64_t, double>> next;
      for (const auto &[offset, weight] : reads)
        for (size_t k = 0; k < taps.index.size(); ++k)
          next.push_back({offset + taps.index[k] * strides[d], weight * taps.weight[k]});
      reads = std::move(next);
    }
    uint8_t *to = out[0].mutableBytes() + flat * int64_t(size);
    if (outside) {
      std::memcpy(to, fill.bytes(), size);
    } else if (!interpolate) {
      std::memcpy(to, x.bytes() + reads[0].first * int64_t(size), size);
    } else {
      double sum = 0;
      for (const auto &[offset, weight] : reads)
        sum += weight * x.data<float>()[offset];
      out[0].mutableData<float>()[flat] = float(sum);
    }
    for (int64_t d = int64_t(outDims.size()) - 1; d >= 0; --d) {
      if (++index[size_t(d)] < outDims[size_t(d)])
        break;
      index[size_t(d)] = 0;
    }
  }
  return Status::success();
}

// f when nearest maps output column j of `axis` to input column j / f
// for an integer f > 1 (an integer upsampling, static), else 0.
int64_t columnRepeat(const ResizeGeometry &g, const AxisPlan &axis) {
  if (!axis.in.isConstant() || !axis.out.isConstant() || axis.in.is(0))
    return 0;
  int64_t in = axis.in.constant(), out = axis.out.constant(), factor = out / in;
  if (factor < 2 || factor * in != out)
    return 0;
  for (int64_t j = 0; j < out; ++j) {
    HostTaps taps = axisTaps(g, axis, j);
    if (taps.outside || taps.index[0] != j / factor)
      return 0;
  }
  return factor;
}

// The kernel's parameters, and its task count (the output rows).
struct KernelPlan {
  ParamBlock<cuvil_resize_params> params;
  Dim rows = 1;
};

// The axes in the kernel's form: runs of axes that are not resized merged
// into one, those after the last resized axis into `inner`, right-aligned
// in CUVIL_RESIZE_AXES slots. The window of each resized axis comes from
// the filter's support at the smallest scale the axis can have.
Expected<KernelPlan> kernelPlan(const ResizeGeometry &g) {
  std::vector<AxisPlan> merged;
  for (const AxisPlan &axis : g.axes) {
    if (!axis.resized && !merged.empty() && !merged.back().resized) {
      merged.back().in *= axis.in;
      merged.back().out *= axis.out;
    } else {
      merged.push_back(axis);
    }
  }
  Dim inner = 1;
  if (!merged.empty() && !merged.back().resized) {
    inner = merged.back().in;
    merged.pop_back();
  }
  if (merged.size() > CUVIL_RESIZE_AXES)
    return Status::error(fmt::format("resized and kept axes alternate {} times; the kernel takes "
                                     "at most {}",
                                     merged.size(), CUVIL_RESIZE_AXES));
  KernelPlan plan;
  ParamBlock<cuvil_resize_params> &params = plan.params;
  size_t lead = CUVIL_RESIZE_AXES - merged.size();
  int64_t rowTaps = 1;
  for (size_t slot = 0; slot < CUVIL_RESIZE_AXES; ++slot) {
    cuvil_resize_axis &to = params->axis[slot];
    to.window = 1;
    if (slot < lead) {
      to.in = to.out = 1;
      continue;
    }
    const AxisPlan &axis = merged[slot - lead];
    params.set(to.in, axis.in);
    params.set(to.out, axis.out);
    to.resized = axis.resized;
    to.scale = axis.scale;
    to.roi_start = axis.roiStart;
    to.roi_end = axis.roiEnd;
    if (axis.resized && g.mode != CUVIL_RESIZE_NEAREST) {
      // The filter scale is min(scale, 1) under antialias, the kernel's
      // float arithmetic: its smallest value gives the widest window.
      float smallest = axis.scale != 0 ? axis.scale
                                       : float(std::max<int64_t>(axis.out.min(), 1)) /
                                             float(std::max<int64_t>(axis.in.max(), 1));
      float filterScale = g.antialias && smallest < 1.0f ? smallest : 1.0f;
      float support = (g.mode == CUVIL_RESIZE_LINEAR ? 1.0f : 2.0f) / filterScale;
      to.window = 2 * int64_t(std::ceil(support));
      if (to.window > CUVIL_RESIZE_MAX_WINDOW)
        return Status::error(fmt::format("antialiased downsampling at scale {} needs {} taps per "
                                         "coordinate; at most {} are supported",
                                         smallest, to.window, CUVIL_RESIZE_MAX_WINDOW));
    }
    if (slot + 1 < CUVIL_RESIZE_AXES) {
      rowTaps *= to.window;
      plan.rows *= axis.out;
    }
  }
  if (rowTaps > CUVIL_RESIZE_MAX_ROW_TAPS)
    return Status::error(fmt::format("an output row reads {} input rows; at most {} are supported",
                                     rowTaps, CUVIL_RESIZE_MAX_ROW_TAPS));
  if (merged.back().in.max() * inner.max() > INT32_MAX)
    return Status::error("the input's rows are too long for the kernel's 32-bit offsets");
  params.set(params->inner, inner);
  params->mode = g.mode;
  params->coordinate = g.coordinate;
  params->rounding = g.rounding;
  params->antialias = g.antialias;
  params->exclude_outside = g.excludeOutside;
  params->extrapolate = g.coordinate == CUVIL_RESIZE_TF_CROP_AND_RESIZE;
  params->cubic_a = g.cubicA;
  params->extrapolation = g.extrapolation;
  if (g.mode == CUVIL_RESIZE_NEAREST && inner.is(1))
    params->column_repeat = columnRepeat(g, merged.back());
  return plan;
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0), *y = node.output(0);
  DType dtype = x->type().dtype;
  Expected<ResizeGeometry> g = geometry(node, x->type().shape);
  CUVIL_TRY(g.status());
  if (y->type().numElements().is(0))
    return Status::success();
  bool resized = std::any_of(g->axes.begin(), g->axes.end(),
                             [](const AxisPlan &axis) { return axis.resized; });
  if (!resized)
    return emitStridedCopy(ctx, x, 0, {Dim(1)}, y, 0, {Dim(1)}, {x->type().numElements()});
  Expected<KernelPlan> plan = kernelPlan(*g);
  CUVIL_TRY(plan.status());
  const KernelRef *kernel = &kResizeKernel;
  if (g->mode == CUVIL_RESIZE_NEAREST) {
    Expected<const KernelRef *> nearest = resizeNearestKernel(dtypeSize(dtype));
    CUVIL_TRY(nearest.status());
    kernel = *nearest;
    Tensor fill = Tensor::scalarF32(g->extrapolation).castTo(dtype);
    int64_t bits = 0;
    std::memcpy(&bits, fill.bytes(), fill.byteSize());
    plan->params->fill_bits = bits;
  } else if (dtype != DType::F32) {
    return Status::error(fmt::format("{} interpolation of {} is not supported (f32 only)",
                                     kModes[size_t(g->mode)], dtypeName(dtype)));
  }
  return ctx.callKernel(*kernel,
                        {KernelArg::pointer(x), KernelArg::pointer(y),
                         KernelArg::error({"Resize of an empty axis (kernel axis {}) to a "
                                           "non-empty one"}),
                         KernelArg::params(plan->params)},
                        plan->rows);
}

} // namespace

extern const OpDefinition kResizeOp = {
    OpSchema{
        "Resize",
        1,
        4,
        1,
        1,
        {{"antialias", AttrKind::Int, Attribute(int64_t(0))},
         {"axes", AttrKind::Ints},
         {"coordinate_transformation_mode", AttrKind::String, Attribute(std::string("half_pixel"))},
         {"cubic_coeff_a", AttrKind::Float, Attribute(-0.75f)},
         {"exclude_outside", AttrKind::Int, Attribute(int64_t(0))},
         {"extrapolation_value", AttrKind::Float, Attribute(0.0f)},
         {"keep_aspect_ratio_policy", AttrKind::String, Attribute(std::string("stretch"))},
         {"mode", AttrKind::String, Attribute(std::string("nearest"))},
         {"nearest_mode", AttrKind::String, Attribute(std::string("round_prefer_floor"))}},
        infer,
        eval},
    lower};

} // namespace cuvil::ops
