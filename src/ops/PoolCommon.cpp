#include "PoolCommon.h"

#include "cuvil/kernels/Pool.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {

Expected<WindowGeometry> poolGeometry(const Node &node, const Shape &x) {
  if (x.size() < 3)
    return Status::error("input must be N-C-spatial");
  if (!node.hasAttr("kernel_shape"))
    return Status::error("kernel_shape is required");
  return windowGeometry(node, Shape(x.begin() + 2, x.end()), node.getInts("kernel_shape"),
                        node.getInt("ceil_mode", 0) != 0);
}

} // namespace

Status inferPool(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  Expected<WindowGeometry> g = poolGeometry(ctx.node(), x);
  CUVIL_TRY(g.status());
  if (ctx.node().numOutputs() > 1)
    return ctx.error("the Indices output is not supported");
  Shape out = {x[0], x[1]};
  out.insert(out.end(), g->output.begin(), g->output.end());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  return Status::success();
}

Status evalPool(const Node &node, const Tensor &x, Tensor &y, PoolKind kind) {
  Expected<WindowGeometry> geometry = poolGeometry(node, x.shape());
  CUVIL_TRY(geometry.status());
  if (geometry->input.size() > 2)
    return Status::error("only 1-D and 2-D pooling is supported");
  WindowGeometry::StaticWindow2D g = geometry->as2D().constant();
  bool countPad = node.getInt("count_include_pad", 0) != 0;
  int64_t planes = x.dim(0) * x.dim(1);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oh = 0; oh < g.OH; ++oh)
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        int64_t h0 = oh * g.SH - g.PT, w0 = ow * g.SW - g.PL;
        double acc = kind == PoolKind::Max ? -INFINITY : 0.0;
        int64_t count = 0;
        for (int64_t kh = 0; kh < g.KH; ++kh)
          for (int64_t kw = 0; kw < g.KW; ++kw) {
            int64_t ih = h0 + kh * g.DH, iw = w0 + kw * g.DW;
            if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W)
              continue;
            double v = x.getDouble((p * g.H + ih) * g.W + iw);
            acc = kind == PoolKind::Max ? std::max(acc, v) : acc + v;
            ++count;
          }
        if (kind == PoolKind::Average) {
          if (countPad)
            count = (std::min(h0 + g.KH, g.H + g.PB) - h0) * (std::min(w0 + g.KW, g.W + g.PR) - w0);
          acc = count ? acc / double(count) : 0.0;
        }
        y.setDouble((p * g.OH + oh) * g.OW + ow, acc);
      }
  return Status::success();
}

Status lowerPool(const Node &node, LoweringContext &ctx, PoolKind kind) {
  const Value *x = node.input(0);
  if (x->type().dtype != DType::F32)
    return Status::error("only f32 is supported");
  Expected<WindowGeometry> geometry = poolGeometry(node, x->type().shape);
  CUVIL_TRY(geometry.status());
  if (geometry->input.size() > 2)
    return Status::error("only 1-D and 2-D pooling is supported");
  WindowGeometry::Window2D g = geometry->as2D();
  ParamBlock<cuvil_pool_params> params;
  setWindow(params, params->window, g);
  params->is_max = kind == PoolKind::Max ? 1 : 0;
  params->count_include_pad = node.getInt("count_include_pad", 0);
  return ctx.callKernel(
      kPool2dKernel,
      {KernelArg::pointer(x), KernelArg::pointer(node.output(0)), KernelArg::params(params)},
      x->type().shape[0] * x->type().shape[1] * g.OH);
}

} // namespace cuvil::ops
