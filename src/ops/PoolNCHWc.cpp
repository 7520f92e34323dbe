// cuvil.PoolNCHWc: MaxPool / AveragePool on a blocked [N, CB, H, W, K]
// tensor (K = 16 or 8), made by the layout-nchwc pass. Attributes are the pool's, plus
// `mode` ("max" or "average").
#include "ChannelBlock.h"
#include "OpSupport.h"
#include "cuvil/kernels/Pool.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {

Expected<WindowGeometry::Window2D> window(const Node &node, const Shape &x) {
  if (x.size() != 5 || !isChannelBlock(x[4]))
    return Status::error(fmt::format("X [{}] is not blocked", shapeToString(x)));
  Expected<WindowGeometry> g = windowGeometry(node, {x[2], x[3]}, node.getInts("kernel_shape"),
                                              node.getInt("ceil_mode", 0) != 0);
  CUVIL_TRY(g.status());
  return g->as2D();
}

bool isMax(const Node &node) { return node.getString("mode", "max") == "max"; }

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  Expected<WindowGeometry::Window2D> g = window(ctx.node(), x);
  CUVIL_TRY(g.status());
  ctx.setOutput(0, TensorType{DType::F32, {x[0], x[1], g->OH, g->OW, x[4]}});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  WindowGeometry::StaticWindow2D g = window(node, x.shape())->constant();
  bool max = isMax(node), countPad = node.getInt("count_include_pad", 0) != 0;
  int64_t planes = x.dim(0) * x.dim(1), K = x.dim(4);
  for (int64_t plane = 0; plane < planes; ++plane)
    for (int64_t oh = 0; oh < g.OH; ++oh)
      for (int64_t ow = 0; ow < g.OW; ++ow)
        for (int64_t c = 0; c < K; ++c) {
          int64_t h0 = oh * g.SH - g.PT, w0 = ow * g.SW - g.PL, count = 0;
          double acc = max ? -INFINITY : 0.0;
          for (int64_t kh = 0; kh < g.KH; ++kh)
            for (int64_t kw = 0; kw < g.KW; ++kw) {
              int64_t ih = h0 + kh * g.DH, iw = w0 + kw * g.DW;
              if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W)
                continue;
              double v = x.getDouble(((plane * g.H + ih) * g.W + iw) * K + c);
              acc = max ? std::max(acc, v) : acc + v;
              ++count;
            }
          if (!max) {
            if (countPad)
              count =
                  (std::min(h0 + g.KH, g.H + g.PB) - h0) * (std::min(w0 + g.KW, g.W + g.PR) - w0);
            acc = count ? acc / double(count) : 0.0;
          }
          out[0].setDouble(((plane * g.OH + oh) * g.OW + ow) * K + c, acc);
        }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Shape &x = node.input(0)->type().shape;
  Expected<WindowGeometry::Window2D> window2D = window(node, x);
  CUVIL_TRY(window2D.status());
  const WindowGeometry::Window2D &g = *window2D;
  ParamBlock<cuvil_pool_params> params;
  setWindow(params, params->window, g);
  params->is_max = isMax(node) ? 1 : 0;
  params->count_include_pad = node.getInt("count_include_pad", 0);
  return ctx.callKernel(kPoolNCHWcKernels.forBlock(x[4].constant()),
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.output(0)),
                         KernelArg::params(params)},
                        x[0] * x[1] * g.OH);
}

} // namespace

extern const OpDefinition kPoolNCHWcOp = {
    OpSchema{"cuvil.PoolNCHWc", 1, 1, 1, 1,
             windowAttributes({{"mode", AttrKind::String},
                               {"ceil_mode", AttrKind::Int},
                               {"count_include_pad", AttrKind::Int}}),
             infer, eval},
    lower};

} // namespace cuvil::ops
