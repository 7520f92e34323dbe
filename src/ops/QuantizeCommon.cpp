#include "QuantizeCommon.h"

#include <cmath>

namespace cuvil::ops {
namespace {

// Elements per task of the quantize kernels: enough to amortise a task,
// few enough to spread a layer's data over the cores.
constexpr int64_t kQuantTaskElements = 16384;

} // namespace

std::optional<QuantizedRange> quantizedRange(DType dtype, bool withI32) {
  switch (dtype) {
  case DType::U8:
    return QuantizedRange{0, 255};
  case DType::I8:
    return QuantizedRange{-128, 127};
  case DType::U16:
    return QuantizedRange{0, 65535};
  case DType::I16:
    return QuantizedRange{-32768, 32767};
  case DType::I32:
    if (withI32)
      return QuantizedRange{INT32_MIN, INT32_MAX};
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

int64_t roundToQuantized(float v, int64_t zeroPoint, QuantizedRange range) {
  float low = float(range.low - zeroPoint), high = float(range.high - zeroPoint);
  v = v > low ? v : low;
  v = v < high ? v : high;
  return int64_t(std::nearbyint(v)) + zeroPoint; // the default mode rounds half to even
}

int64_t QuantLayout::entry(int64_t flat) const {
  int64_t innerDim = inner.constant(), axis = axisDim.constant();
  int64_t i = flat % innerDim, row = flat / innerDim;
  return row / axis * outerStride.constant() + row % axis / axisBlock * axisStride.constant() +
         i / innerBlock * innerStride.constant();
}

ParamBlock<cuvil_quant_layout> QuantLayout::kernelParams() const {
  ParamBlock<cuvil_quant_layout> params;
  params.set(params->elements, elements);
  params->task_elements = kQuantTaskElements;
  params.set(params->axis_dim, axisDim);
  params.set(params->inner, inner);
  params->axis_block = axisBlock;
  params->inner_block = innerBlock;
  params.set(params->scale_outer_stride, outerStride);
  params.set(params->scale_axis_stride, axisStride);
  params.set(params->scale_inner_stride, innerStride);
  return params;
}

Dim QuantLayout::tasks() const { return ceilDiv(elements, kQuantTaskElements); }

Expected<QuantLayout> quantLayout(const Node &node, const Shape &x, const Shape &scale,
                                  std::string_view what) {
  int64_t blockSize = node.getInt("block_size");
  if (blockSize < 0)
    return Status::error(fmt::format("block_size is {}; it must not be negative", blockSize));
  QuantLayout layout;
  layout.elements = numElements(x);
  layout.inner = layout.elements;
  // One element is per tensor, whatever the axis (as the ONNX reference
  // reads it).
  if (numElements(scale).is(1))
    return layout;
  bool perAxis = scale.size() == 1 && blockSize == 0;
  bool blocked = blockSize > 0 && scale.size() == x.size();
  if (!perAxis && !blocked)
    return Status::error(fmt::format(
        "{} has shape [{}]: it must have one element, or {}", what, shapeToString(scale),
        blockSize == 0 ? "be 1-D (per axis)" : fmt::format("rank {} (blocked)", x.size())));
  Expected<AxisSplit> split = splitAtAxis(x, node.getInt("axis"));
  CUVIL_TRY(split.status());
  size_t axis = size_t(*split->axis);
  if (perAxis) {
    if (scale[0] != x[axis])
      return Status::error(fmt::format("{} has {} elements, axis {} of x [{}] {}", what,
                                       scale[0].str(), axis, shapeToString(x), x[axis].str()));
    layout.axisDim = x[axis];
    layout.inner = split->inner;
    layout.axisStride = 1;
  } else {
    Shape expected = x;
    expected[axis] = ceilDiv(x[axis], blockSize);
    if (scale != expected)
      return Status::error(fmt::format("{} has shape [{}]; blocks of {} along axis {} of x [{}] "
                                       "need [{}]",
                                       what, shapeToString(scale), blockSize, axis,
                                       shapeToString(x), shapeToString(expected)));
    layout.axisDim = x[axis];
    layout.inner = split->inner;
    layout.axisBlock = blockSize;
    layout.axisStride = split->inner;
    layout.outerStride = expected[axis] * split->inner;
    layout.innerStride = 1;
  }
  // Along the last axis, runs of one element would each restart the
  // kernel's loop: view [outer, axis, 1] as [outer, 1, axis] instead.
  if (layout.inner.is(1)) {
    layout.inner = layout.axisDim;
    layout.axisDim = 1;
    layout.innerBlock = layout.axisBlock;
    layout.axisBlock = 1;
    layout.outerStride = blocked ? ceilDiv(layout.inner, blockSize) : Dim(0);
    layout.innerStride = 1;
    layout.axisStride = 0;
  }
  return layout;
}

Status checkZeroPoint(const InferContext &ctx, size_t zeroPoint, size_t scale, DType dtype) {
  if (!ctx.hasInput(zeroPoint))
    return Status::success();
  if (ctx.inputDType(zeroPoint) != dtype)
    return ctx.error("the zero point is {}, the quantized data {}",
                     dtypeName(ctx.inputDType(zeroPoint)), dtypeName(dtype));
  // One element each is per tensor whatever the shapes, [] against [1]
  // included (ONNX Runtime's quantize_static writes that pair).
  const Shape &zeroShape = ctx.inputShape(zeroPoint), &scaleShape = ctx.inputShape(scale);
  const bool bothSingle = numElements(zeroShape).is(1) && numElements(scaleShape).is(1);
  if (zeroShape != scaleShape && !bothSingle)
    return ctx.error("the zero point has shape [{}], its scale [{}]: they must be equal",
                     shapeToString(ctx.inputShape(zeroPoint)),
                     shapeToString(ctx.inputShape(scale)));
  return Status::success();
}

std::vector<AttrSpec> quantAttributes(std::vector<AttrSpec> extra) {
  std::vector<AttrSpec> attributes = {{"axis", AttrKind::Int, Attribute(int64_t(1))},
                                      {"block_size", AttrKind::Int, Attribute(int64_t(0))},
                                      {"output_dtype", AttrKind::Int, Attribute(int64_t(0))}};
  attributes.insert(attributes.end(), extra.begin(), extra.end());
  return attributes;
}

} // namespace cuvil::ops
