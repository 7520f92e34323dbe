#include "ConvCommon.h"

#include "cuvil/kernels/Conv.h"

namespace cuvil::ops {

std::vector<AttrSpec> convAttributes(std::vector<AttrSpec> extra) {
  extra.push_back({"group", AttrKind::Int});
  return windowAttributes(std::move(extra));
}

Expected<WindowGeometry> convGeometry(const Node &node, const Shape &x, const Shape &w) {
  if (x.size() < 3 || w.size() != x.size())
    return Status::error(fmt::format("X [{}] and W [{}] are not N-C-spatial tensors of one rank",
                                     shapeToString(x), shapeToString(w)));
  int64_t group = node.getInt("group", 1);
  // The output channels may be symbolic (weights given as an input) where
  // one group holds them all.
  if (!isStatic(std::span(w).subspan(1)) || !x[1].isConstant() ||
      (!w[0].isConstant() && group != 1))
    return Status::error(fmt::format("X [{}] and W [{}]: input channels, kernel and grouped "
                                     "output channels must be static",
                                     shapeToString(x), shapeToString(w)));
  int64_t C = x[1].constant(), M = w[0].isConstant() ? w[0].constant() : 1, Cg = w[1].constant();
  if (group <= 0 || C % group != 0 || M % group != 0 || Cg * group != C)
    return Status::error(fmt::format("{} input channels, W [{}] and group {} do not agree", C,
                                     shapeToString(w), group));
  std::vector<int64_t> kernel = staticDims(std::span(w).subspan(2));
  if (node.hasAttr("kernel_shape") && node.getInts("kernel_shape") != kernel)
    return Status::error("kernel_shape disagrees with W");
  return windowGeometry(node, Shape(x.begin() + 2, x.end()), kernel, false);
}

Status inferConv(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0), &w = ctx.inputShape(1);
  Expected<WindowGeometry> g = convGeometry(ctx.node(), x, w);
  CUVIL_TRY(g.status());
  if (ctx.hasInput(2) && ctx.inputShape(2) != Shape{w[0]})
    return ctx.error("bias has shape [{}], expected [{}]", shapeToString(ctx.inputShape(2)), w[0]);
  Shape out = {x[0], w[0]};
  out.insert(out.end(), g->output.begin(), g->output.end());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  return Status::success();
}

Status evalConv(const Node &node, const Tensor &x, const Tensor &w, const Tensor *b,
                const Tensor *residual, const FusedActivation &activation, Tensor &y) {
  Expected<WindowGeometry> geometry = convGeometry(node, x.shape(), w.shape());
  CUVIL_TRY(geometry.status());
  if (geometry->input.size() > 2)
    return Status::error("only 1-D and 2-D convolutions are supported");
  WindowGeometry::StaticWindow2D g = geometry->as2D().constant();
  int64_t N = x.dim(0), C = x.dim(1), M = w.dim(0);
  int64_t groups = node.getInt("group", 1), Cg = C / groups, Mg = M / groups;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          double sum = b ? b->getDouble(m) : 0.0;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t kh = 0; kh < g.KH; ++kh)
              for (int64_t kw = 0; kw < g.KW; ++kw) {
                int64_t ih = oh * g.SH - g.PT + kh * g.DH, iw = ow * g.SW - g.PL + kw * g.DW;
                if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W)
                  continue;
                int64_t xi = ((n * C + (m / Mg) * Cg + c) * g.H + ih) * g.W + iw;
                int64_t wi = ((m * Cg + c) * g.KH + kh) * g.KW + kw;
                sum += x.getDouble(xi) * w.getDouble(wi);
              }
          int64_t yi = ((n * M + m) * g.OH + oh) * g.OW + ow;
          if (residual)
            sum += residual->getDouble(yi);
          y.setDouble(yi, activation.apply(sum));
        }
  return Status::success();
}

Status lowerConv(const Node &node, LoweringContext &ctx, const Value *residual,
                 const FusedActivation &activation) {
  const Value *x = node.input(0), *w = node.input(1);
  if (x->type().dtype != DType::F32)
    return Status::error(
        fmt::format("element type {} is not supported", dtypeName(x->type().dtype)));
  Expected<WindowGeometry> geometry = convGeometry(node, x->type().shape, w->type().shape);
  CUVIL_TRY(geometry.status());
  if (geometry->input.size() > 2)
    return Status::error("only 1-D and 2-D convolutions are supported");
  ParamBlock<cuvil_conv2d_params> params;
  params->C = x->type().shape[1].constant();
  params.set(params->M, w->type().shape[0]);
  params->groups = node.getInt("group", 1);
  setWindow(params, params->window, geometry->as2D());
  params->activation = activation.kernel();
  return ctx.callKernel(kConv2dKernel,
                        {KernelArg::pointer(x), KernelArg::pointer(w),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::optionalPointer(residual), KernelArg::pointer(node.output(0)),
                         KernelArg::params(params)},
                        x->type().shape[0] * w->type().shape[0]);
}

} // namespace cuvil::ops