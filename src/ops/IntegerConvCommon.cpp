#include "IntegerConvCommon.h"

#include "IntegerGemmCommon.h"
#include "QuantizeCommon.h"

namespace cuvil::ops {
namespace {

bool isEightBit(DType dtype) { return dtype == DType::U8 || dtype == DType::I8; }

// A weight zero point's or scale's entry step per output channel: 0 per
// tensor, 1 per channel ([M]).
Expected<Dim> perChannelStride(const Shape &shape, const Dim &channels, std::string_view what) {
  if (numElements(shape).is(1))
    return Dim(0);
  if (shape.size() == 1 && shape[0] == channels)
    return Dim(1);
  return Status::error(fmt::format("{} has shape [{}]: it must have one element or one per "
                                   "output channel ({})",
                                   what, shapeToString(shape), channels.str()));
}

struct IntegerConvGeometry {
  WindowGeometry window;
  Dim wZeroStride = 0, wScaleStride = 0;
};

Expected<IntegerConvGeometry> geometry(const Node &node, const IntegerConvInputs &inputs) {
  const Shape &x = node.input(inputs.x)->type().shape, &w = node.input(inputs.w)->type().shape;
  Expected<WindowGeometry> window = convGeometry(node, x, w);
  CUVIL_TRY(window.status());
  if (window->input.size() > 2)
    return Status::error("only 1-D and 2-D convolutions are supported");
  IntegerConvGeometry g{*window};
  if (node.hasInput(inputs.wZero)) {
    Expected<Dim> stride =
        perChannelStride(node.input(inputs.wZero)->type().shape, w[0], "w_zero_point");
    CUVIL_TRY(stride.status());
    g.wZeroStride = *stride;
  }
  if (inputs.wScale) {
    Expected<Dim> stride =
        perChannelStride(node.input(*inputs.wScale)->type().shape, w[0], "w_scale");
    CUVIL_TRY(stride.status());
    g.wScaleStride = *stride;
  }
  return g;
}

} // namespace

Status inferIntegerConv(InferContext &ctx, const IntegerConvInputs &inputs, DType result) {
  for (size_t operand : {inputs.x, inputs.w})
    if (!isEightBit(ctx.inputDType(operand)))
      return ctx.error("x and w must be u8 or i8, got {}", dtypeName(ctx.inputDType(operand)));
  for (auto [zero, operand] :
       {std::pair{inputs.xZero, inputs.x}, std::pair{inputs.wZero, inputs.w}})
    if (ctx.hasInput(zero) && ctx.inputDType(zero) != ctx.inputDType(operand))
      return ctx.error("a zero point is {}, its operand {}", dtypeName(ctx.inputDType(zero)),
                       dtypeName(ctx.inputDType(operand)));
  for (std::optional<size_t> scale : {inputs.xScale, inputs.wScale})
    if (scale && ctx.inputDType(*scale) != DType::F32)
      return ctx.error("scales must be f32, got {}", dtypeName(ctx.inputDType(*scale)));
  if (ctx.hasInput(inputs.xZero))
    CUVIL_TRY(checkScalarInput(ctx, inputs.xZero, "x_zero_point"));
  if (inputs.xScale)
    CUVIL_TRY(checkScalarInput(ctx, *inputs.xScale, "x_scale"));
  Expected<IntegerConvGeometry> g = geometry(ctx.node(), inputs);
  CUVIL_TRY(g.status());
  const Shape &x = ctx.inputShape(inputs.x), &w = ctx.inputShape(inputs.w);
  Shape out = {x[0], w[0]};
  out.insert(out.end(), g->window.output.begin(), g->window.output.end());
  ctx.setOutput(0, TensorType{result, out});
  return Status::success();
}

Status evalIntegerConv(const Node &node, const IntegerConvInputs &inputs,
                       std::span<const Tensor *const> in, const IntegerConvVisitor &visit) {
  Expected<IntegerConvGeometry> geo = geometry(node, inputs);
  CUVIL_TRY(geo.status());
  const Tensor &x = *in[inputs.x], &w = *in[inputs.w];
  const Tensor *xZero = in.size() > inputs.xZero ? in[inputs.xZero] : nullptr;
  const Tensor *wZero = in.size() > inputs.wZero ? in[inputs.wZero] : nullptr;
  WindowGeometry::StaticWindow2D g = geo->window.as2D().constant();
  int64_t N = x.dim(0), C = x.dim(1), M = w.dim(0);
  int64_t groups = node.getInt("group", 1), Cg = C / groups, Mg = M / groups;
  int64_t zx = xZero ? xZero->getInt(0) : 0, wStride = geo->wZeroStride.constant();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      int64_t zw = wZero ? wZero->getInt(m * wStride) : 0;
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          uint32_t acc = 0; // wraps, as the kernel's i32 accumulators
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t kh = 0; kh < g.KH; ++kh)
              for (int64_t kw = 0; kw < g.KW; ++kw) {
                int64_t ih = oh * g.SH - g.PT + kh * g.DH, iw = ow * g.SW - g.PL + kw * g.DW;
                if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W)
                  continue;
                int64_t xi = ((n * C + (m / Mg) * Cg + c) * g.H + ih) * g.W + iw;
                int64_t wi = ((m * Cg + c) * g.KH + kh) * g.KW + kw;
                acc += uint32_t((x.getInt(xi) - zx) * (w.getInt(wi) - zw));
              }
          visit(((n * M + m) * g.OH + oh) * g.OW + ow, int32_t(acc), m);
        }
    }
  return Status::success();
}

Status inferRequantizedConv(InferContext &ctx, DType result) {
  const DType quantized = ctx.inputDType(kRequantizedOutZero);
  if (quantized != DType::U8 && quantized != DType::I8)
    return ctx.error("y_zero_point is {}: u8 or i8 are supported", dtypeName(quantized));
  if (ctx.inputDType(kRequantizedOutScale) != DType::F32)
    return ctx.error("y_scale is {}: f32 is supported",
                     dtypeName(ctx.inputDType(kRequantizedOutScale)));
  CUVIL_TRY(checkScalarInput(ctx, kRequantizedOutScale, "y_scale"));
  CUVIL_TRY(checkScalarInput(ctx, kRequantizedOutZero, "y_zero_point"));
  CUVIL_TRY(inferIntegerConv(ctx, kRequantizedConvInputs, result));
  const size_t w = kRequantizedConvInputs.w;
  if (ctx.hasInput(kRequantizedBias) &&
      (ctx.inputDType(kRequantizedBias) != DType::I32 ||
       ctx.inputShape(kRequantizedBias) != Shape{ctx.inputShape(w)[0]}))
    return ctx.error("the bias is {}: it must be i32[{}]", ctx.inputType(kRequantizedBias).str(),
                     ctx.inputShape(w)[0].str());
  return Status::success();
}

Status evalRequantizedConv(const Node &node, std::span<const Tensor *const> in,
                           const std::function<void(int64_t, int64_t, int64_t)> &visit) {
  const Tensor &wScale = *in[*kRequantizedConvInputs.wScale];
  const Tensor *bias = in.size() > kRequantizedBias && node.hasInput(kRequantizedBias)
                           ? in[kRequantizedBias]
                           : nullptr;
  const float xScale = float(in[*kRequantizedConvInputs.xScale]->getDouble(0));
  const float outScale = float(in[kRequantizedOutScale]->getDouble(0));
  const int64_t outZero = in[kRequantizedOutZero]->getInt(0);
  const int64_t wScaleStride = wScale.numElements() == 1 ? 0 : 1;
  const QuantizedRange range = *quantizedRange(in[kRequantizedOutZero]->dtype());
  return evalIntegerConv(
      node, kRequantizedConvInputs, in, [&](int64_t flat, int32_t acc, int64_t m) {
        float multiplier = xScale * float(wScale.getDouble(m * wScaleStride)) / outScale;
        auto value = int32_t(uint32_t(acc) + uint32_t(bias ? bias->getInt(m) : 0));
        visit(flat, roundToQuantized(float(value) * multiplier, outZero, range), m);
      });
}

Expected<IntegerConvCall> integerConvCall(const Node &node, const LoweringContext &ctx,
                                          const IntegerConvInputs &inputs) {
  Expected<IntegerConvGeometry> g = geometry(node, inputs);
  CUVIL_TRY(g.status());
  const Shape &x = node.input(inputs.x)->type().shape, &w = node.input(inputs.w)->type().shape;
  IntegerConvCall call;
  ParamBlock<cuvil_iconv_params> &params = call.params;
  int64_t groups = node.getInt("group", 1);
  params->C = x[1].constant();
  params.set(params->M, w[0]);
  params->groups = groups;
  setWindow(params, params->window, g->window.as2D());
  params.set(params->w_zero_stride, g->wZeroStride);
  params.set(params->w_scale_stride, g->wScaleStride);
  params->products = integerProducts(ctx.cpu(), node.input(inputs.x), node.input(inputs.w),
                                     node.input(inputs.wZero), WeightLines::Rows);
  // Blocking is a cost decision: it takes the shape the static path serves.
  Dim channels = floorDiv(w[0], groups);
  params->blocking = chooseIntegerBlocking(ctx.cpu(), channels.opt(), params->products);
  Dim pixels = g->window.as2D().OH * g->window.as2D().OW;
  call.tasks = x[0] * groups * ceilDiv(channels, params->blocking.row_block) *
               ceilDiv(pixels, CUVIL_IGEMM_PANEL);
  // Every output pixel of every image takes every weight once.
  call.flops = integerWorkFlops(x[0] * pixels * numElements(w), params->products);
  return call;
}

} // namespace cuvil::ops
