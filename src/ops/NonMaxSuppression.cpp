// NonMaxSuppression: per batch and class, the boxes kept by greedy
// suppression (best score first, ties by the smaller index; a box is dropped
// when its IoU with one kept before it is above iou_threshold), at most
// max_output_boxes_per_class each, as i64[count, 3] rows [batch, class,
// box]. The count comes from the data: a symbol bounded by batches x classes
// x min(boxes, max_output_boxes_per_class) when that input is a constant
// (x boxes when it is data). The limit and thresholds are each input's
// first element; omitted: no boxes kept, IoU threshold 0, every score a
// candidate (NaN scores never are).
#include "OpSupport.h"
#include "cuvil/kernels/Select.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cuvil::ops {
namespace {

struct NmsGeometry {
  Dim batches, boxes, classes;
};

Expected<NmsGeometry> geometry(const Node &node) {
  const TensorType &boxes = node.input(0)->type(), &scores = node.input(1)->type();
  if (boxes.dtype != DType::F32 || scores.dtype != DType::F32)
    return Status::error(fmt::format("boxes and scores must be f32, are {} and {}",
                                     dtypeName(boxes.dtype), dtypeName(scores.dtype)));
  if (boxes.shape.size() != 3 || boxes.shape[2] != Dim(4))
    return Status::error(
        fmt::format("boxes must be [batches, boxes, 4], are [{}]", shapeToString(boxes.shape)));
  if (scores.shape.size() != 3 || scores.shape[0] != boxes.shape[0] ||
      scores.shape[2] != boxes.shape[1])
    return Status::error(fmt::format("scores must be [batches, classes, boxes] = [{}, classes, "
                                     "{}] for these boxes, are [{}]",
                                     boxes.shape[0], boxes.shape[1], shapeToString(scores.shape)));
  // The kernel keeps box indices in 32 bits.
  if (boxes.shape[1].max() > std::numeric_limits<int32_t>::max())
    return Status::error(fmt::format("{} boxes are more than the {} supported", boxes.shape[1],
                                     std::numeric_limits<int32_t>::max()));
  for (size_t i = 2; i < std::min<size_t>(node.numInputs(), 5); ++i) {
    const Value *v = node.input(i);
    DType want = i == 2 ? DType::I64 : DType::F32;
    if (v && (v->type().dtype != want || numElements(v->type().shape).min() < 1))
      return Status::error(fmt::format("input {} must be a {} tensor with an element, is {}[{}]", i,
                                       dtypeName(want), dtypeName(v->type().dtype),
                                       shapeToString(v->type().shape)));
  }
  return NmsGeometry{boxes.shape[0], boxes.shape[1], scores.shape[1]};
}

// The reference, as the ONNX one: float IoU of corner or centre boxes.
struct Box {
  float x0, y0, x1, y1;
};

Box boxAt(const Tensor &boxes, int64_t at, bool center) {
  float v[4];
  for (int64_t j = 0; j < 4; ++j)
    v[j] = float(boxes.getDouble(at * 4 + j));
  if (center)
    return {v[0] - v[2] / 2, v[1] - v[3] / 2, v[0] + v[2] / 2, v[1] + v[3] / 2};
  return {std::min(v[1], v[3]), std::min(v[0], v[2]), std::max(v[1], v[3]), std::max(v[0], v[2])};
}

bool iouAbove(const Box &a, const Box &b, float threshold) {
  float x0 = std::max(a.x0, b.x0), x1 = std::min(a.x1, b.x1);
  float y0 = std::max(a.y0, b.y0), y1 = std::min(a.y1, b.y1);
  if (x1 <= x0 || y1 <= y0)
    return false;
  float intersection = (x1 - x0) * (y1 - y0);
  float areaA = (a.x1 - a.x0) * (a.y1 - a.y0), areaB = (b.x1 - b.x0) * (b.y1 - b.y0);
  float united = areaA + areaB - intersection;
  if (intersection <= 0 || areaA <= 0 || areaB <= 0 || united <= 0)
    return false;
  return intersection / united > threshold;
}

// The rows [batch, class, box] the reference keeps for constant inputs
// (omitted ones null).
std::vector<int64_t> keptRows(const Node &node, const Tensor &boxes, const Tensor &scores,
                              const Tensor *maxOutput, const Tensor *iouThreshold,
                              const Tensor *scoreThreshold) {
  int64_t batches = boxes.dims()[0], n = boxes.dims()[1], classes = scores.dims()[1];
  int64_t perClass = maxOutput ? std::clamp<int64_t>(maxOutput->getInt(0), 0, n) : 0;
  float iou = iouThreshold ? float(iouThreshold->getDouble(0)) : 0.0f;
  bool center = node.getInt("center_point_box") != 0;
  std::vector<int64_t> rows;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      auto score = [&](int64_t i) { return float(scores.getDouble((b * classes + c) * n + i)); };
      std::vector<int64_t> order;
      for (int64_t i = 0; i < n; ++i)
        if (!std::isnan(score(i)) &&
            (!scoreThreshold || score(i) > float(scoreThreshold->getDouble(0))))
          order.push_back(i);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t x, int64_t y) { return score(x) > score(y); });
      std::vector<Box> kept;
      for (int64_t i : order) {
        if (int64_t(kept.size()) == perClass)
          break;
        Box box = boxAt(boxes, b * n + i, center);
        if (std::none_of(kept.begin(), kept.end(),
                         [&](const Box &k) { return iouAbove(box, k, iou); })) {
          kept.push_back(box);
          rows.insert(rows.end(), {b, c, i});
        }
      }
    }
  return rows;
}

const Tensor *optionalInput(std::span<const Tensor *const> in, size_t i) {
  return i < in.size() ? in[i] : nullptr;
}

// Rows kept at most: batches x classes x min(boxes, max_output) for a
// constant max_output (x boxes when it is data); the buffer's capacity.
int64_t rowBound(const Node &node, const NmsGeometry &g) {
  const Value *maxOutput = node.input(2);
  int64_t perClass = !maxOutput ? 0
                     : maxOutput->isConstant()
                         ? std::clamp<int64_t>(maxOutput->constant().getInt(0), 0, g.boxes.max())
                         : g.boxes.max();
  return g.batches.max() * g.classes.max() * perClass;
}

Status infer(InferContext &ctx) {
  Expected<NmsGeometry> g = geometry(ctx.node());
  CUVIL_TRY(g.status());
  bool constant = true;
  std::vector<const Tensor *> in;
  for (size_t i = 0; i < ctx.node().numInputs(); ++i) {
    in.push_back(ctx.node().hasInput(i) ? ctx.constantInput(i) : nullptr);
    constant = constant && (in.back() || !ctx.node().hasInput(i));
  }
  Dim count;
  if (constant)
    count = int64_t(keptRows(ctx.node(), *in[0], *in[1], optionalInput(in, 2), optionalInput(in, 3),
                             optionalInput(in, 4))
                        .size() /
                    3);
  else if (int64_t bound = rowBound(ctx.node(), *g); bound > 0)
    count = ctx.dataSymbol("count", bound);
  ctx.setOutput(0, TensorType{DType::I64, {count, 3}});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  std::vector<int64_t> rows = keptRows(node, *in[0], *in[1], optionalInput(in, 2),
                                       optionalInput(in, 3), optionalInput(in, 4));
  out[0] = Tensor::fromInt64s(rows, {int64_t(rows.size() / 3), 3});
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<NmsGeometry> g = geometry(node);
  CUVIL_TRY(g.status());
  const Value *selected = node.output(0);
  const Dim &count = selected->type().shape[0];
  if (count == Dim(0))
    return Status::success(); // nothing is ever kept: an empty result
  std::optional<SymbolId> symbol = count.asSymbol();
  if (!symbol)
    return Status::error(
        "internal error: a NonMaxSuppression that is not folded has a count from data");
  ParamBlock<cuvil_nms_params> params;
  params.set(params->batches, g->batches);
  params.set(params->classes, g->classes);
  params.set(params->boxes, g->boxes);
  params->capacity = rowBound(node, *g);
  params->center_point_box = node.getInt("center_point_box") != 0;
  static const KernelRef kNms = CUVIL_KERNEL_REF(cuvil_nms_f32);
  return ctx.callKernel(kNms,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::optionalPointer(node.input(3)),
                         KernelArg::optionalPointer(node.input(4)), KernelArg::pointer(selected),
                         KernelArg::symbol(*symbol), KernelArg::params(params)},
                        1);
}

} // namespace

extern const OpDefinition kNonMaxSuppressionOp = {
    OpSchema{"NonMaxSuppression",
             2,
             5,
             1,
             1,
             {{"center_point_box", AttrKind::Int, Attribute(int64_t(0))}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
