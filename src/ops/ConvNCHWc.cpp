// cuvil.ConvNCHWc: convolution in the blocked NCHWc layout (block K = 16 or
// 8 channels), made by the layout-nchwc pass from Conv / cuvil.FusedConv:
//   y = activation(conv(X, W) + B + Residual)
// X is [N, ICB, IH, IW, K], or plain [N, C, IH, IW] when `plain_input` (a
// first layer with a handful of channels). W is packed by the pass:
//   dense      [OCB, ICB, KH, KW, K (ic), K (oc)]
//   plain      [OCB, C,   KH, KW, K (oc)]
//   depthwise  [CB,       KH, KW, K]         (`depthwise`: one filter per channel)
// B is [OCB * K] (optional); Residual and y are [N, OCB, OH, OW, K].
// `input_channels` (optional) is C when the last input block is partly
// padding, whose multiplications the kernel then skips.
// A grouped convolution (`group` groups of `group_channels` = [input,
// output] channels each) has W packed `grouped`: [OCB, window, KH, KW, K, K],
// each output block's window of input blocks (cuvil_conv_window_start).
// Padding channels carry zero weights and bias.
#include "ChannelBlock.h"
#include "ConvTiling.h"
#include "FusedActivation.h"
#include "OpSupport.h"
#include "cuvil/kernels/Conv.h"

namespace cuvil::ops {
namespace {

// Widest row a pointwise convolution's pixels are re-cut into.
constexpr int64_t kPointwiseRow = 64;
// Channels and the kernel are static (the weights are constants); the
// batch and the image may be symbolic.
struct BlockedConv {
  Dim N, IH, IW;
  int64_t G, ICB, OCB, KH, KW, K;    // G: input groups (window blocks when grouped)
  int64_t groupIn = 0, groupOut = 0; // grouped: channels per group; 0: dense
  bool plain, depthwise;
  WindowGeometry::Window2D window;
};

Expected<BlockedConv> describe(const Node &node, const Shape &x, const Shape &w) {
  BlockedConv c{};
  c.plain = node.getInt("plain_input", 0) != 0;
  c.depthwise = node.getInt("depthwise", 0) != 0;
  size_t xRank = c.plain ? 4 : 5, wRank = c.depthwise ? 4 : (c.plain ? 5 : 6);
  c.K = w.empty() || !w.back().isConstant() ? 0 : w.back().constant();
  bool blocked = x.size() == xRank && w.size() == wRank && isStatic(w) && isChannelBlock(c.K) &&
                 x[1].isConstant() && (c.plain || x[4].is(c.K)) && (wRank != 6 || w[4].is(c.K));
  if (!blocked)
    return Status::error(fmt::format("X [{}] and W [{}] are not in the blocked layout",
                                     shapeToString(x), shapeToString(w)));
  c.N = x[0];
  c.G = c.ICB = x[1].constant();
  c.IH = x[2];
  c.IW = x[3];
  c.OCB = w[0].constant();
  c.KH = (c.depthwise ? w[1] : w[2]).constant();
  c.KW = (c.depthwise ? w[2] : w[3]).constant();
  if (node.getInt("group", 1) > 1) {
    std::vector<int64_t> channels = node.getInts("group_channels", {});
    int64_t groups = node.getInt("group", 1);
    bool valid = !c.depthwise && !c.plain && channels.size() == 2 && channels[0] > 0 &&
                 channels[1] > 0 && channels[0] * groups <= c.ICB * c.K &&
                 (channels[1] * groups + c.K - 1) / c.K == c.OCB;
    if (!valid)
      return Status::error(fmt::format("group {} with group_channels [{}] does not fit X [{}]",
                                       groups, fmt::join(channels, ", "), shapeToString(x)));
    c.groupIn = channels[0];
    c.groupOut = channels[1];
    c.G = groupedWindowBlocks(c.groupIn, c.groupOut, groups, c.K);
  }
  if ((c.depthwise && c.OCB != c.G) || (!c.depthwise && !w[1].is(c.G)))
    return Status::error(
        fmt::format("W [{}] does not match {} input groups", shapeToString(w), c.G));
  Expected<WindowGeometry> g = windowGeometry(node, {c.IH, c.IW}, {c.KH, c.KW}, false);
  CUVIL_TRY(g.status());
  c.window = g->as2D();
  return c;
}

Status infer(InferContext &ctx) {
  Expected<BlockedConv> c = describe(ctx.node(), ctx.inputShape(0), ctx.inputShape(1));
  CUVIL_TRY(c.status());
  CUVIL_TRY(fusedActivation(ctx.node()).status());
  TensorType out{DType::F32, {c->N, c->OCB, c->window.OH, c->window.OW, c->K}};
  if (ctx.hasInput(2) && ctx.inputShape(2) != Shape{c->OCB * c->K})
    return ctx.error("bias has shape [{}], expected [{}]", shapeToString(ctx.inputShape(2)),
                     c->OCB * c->K);
  if (ctx.hasInput(3) && ctx.inputType(3) != out)
    return ctx.error("the residual is {}, the result {}", ctx.inputType(3).str(), out.str());
  ctx.setOutput(0, out);
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0], &w = *in[1];
  const Tensor *bias = in.size() > 2 ? in[2] : nullptr;
  const Tensor *residual = in.size() > 3 ? in[3] : nullptr;
  BlockedConv c = *describe(node, x.shape(), w.shape());
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  const WindowGeometry::Window2D &g = c.window;
  const int64_t K = c.K, N = c.N.constant(), IH = c.IH.constant(), IW = c.IW.constant();
  const int64_t OH = g.OH.constant(), OW = g.OW.constant();
  const int64_t PT = g.PT.constant(), PL = g.PL.constant();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ocb = 0; ocb < c.OCB; ++ocb)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow)
          for (int64_t o = 0; o < K; ++o) {
            double sum = bias ? bias->getDouble(ocb * K + o) : 0.0;
            for (int64_t kh = 0; kh < c.KH; ++kh)
              for (int64_t kw = 0; kw < c.KW; ++kw) {
                int64_t ih = oh * g.SH - PT + kh * g.DH, iw = ow * g.SW - PL + kw * g.DW;
                if (ih < 0 || ih >= IH || iw < 0 || iw >= IW)
                  continue;
                if (c.depthwise) {
                  sum += x.getDouble((((n * c.G + ocb) * IH + ih) * IW + iw) * K + o) *
                         w.getDouble(((ocb * c.KH + kh) * c.KW + kw) * K + o);
                  continue;
                }
                const int64_t x0 =
                    cuvil_conv_window_start(ocb, K, c.groupIn, c.groupOut, c.ICB, c.G);
                for (int64_t grp = 0; grp < c.G; ++grp)
                  for (int64_t i = 0; i < (c.plain ? 1 : K); ++i) {
                    const int64_t xg = n * c.ICB + x0 + grp;
                    double xv = c.plain ? x.getDouble((xg * IH + ih) * IW + iw)
                                        : x.getDouble(((xg * IH + ih) * IW + iw) * K + i);
                    int64_t wi =
                        c.plain ? (((ocb * c.G + grp) * c.KH + kh) * c.KW + kw) * K + o
                                : ((((ocb * c.G + grp) * c.KH + kh) * c.KW + kw) * K + i) * K + o;
                    sum += xv * w.getDouble(wi);
                  }
              }
            int64_t yi = (((n * c.OCB + ocb) * OH + oh) * OW + ow) * K + o;
            if (residual)
              sum += residual->getDouble(yi);
            out[0].setDouble(yi, activation->apply(sum));
          }
  return Status::success();
}

// Output [N, OCB, OH, OW, K]: its channels are OCB x K, padding included,
// as in the packed weights. Taps that read padding are skipped by the
// kernels, so only those inside count (at the opt extents).
Dim blockedConvolutionFlops(const Node &node, const WindowGeometry::Window2D &g) {
  const Shape &y = node.output(0)->type().shape;
  Dim dense = convolutionFlops(node.output(0), node.input(1), y[1] * y[4]);
  const int64_t OH = g.OH.opt(), OW = g.OW.opt();
  const int64_t inside = insideTaps(g.H.opt(), OH, g.KH, g.SH, g.DH, g.PT.opt()) *
                         insideTaps(g.W.opt(), OW, g.KW, g.SW, g.DW, g.PL.opt());
  const int64_t all = OH * g.KH * OW * g.KW;
  return all == 0 || inside == all ? dense : floorDiv(dense * inside, Dim(all));
}

// Output columns whose window leaves the input at the opt width: the
// kernel's border pixels (an atrous convolution's window may be wider than
// the row, leaving all of them border ones).
int64_t borderPixels(const WindowGeometry::Window2D &window) {
  const int64_t OW = window.OW.opt(), PL = window.PL.opt(), IW = window.W.opt();
  const int64_t span = (window.KW - 1) * window.DW;
  int64_t first = PL <= 0 ? 0 : (PL + window.SW - 1) / window.SW;
  int64_t last = IW - 1 + PL - span < 0 ? 0 : (IW - 1 + PL - span) / window.SW + 1;
  last = std::min(last, OW);
  first = std::min(first, last);
  return first + OW - last;
}

Status lowerDepthwise(const Node &node, LoweringContext &ctx, const BlockedConv &c,
                      const FusedActivation &activation) {
  const WindowGeometry::Window2D &g = c.window;
  DepthwiseTile tile = chooseDepthwiseTile(c.K, ctx.cpu(), c.KW, g.SW, g.DW);
  ParamBlock<cuvil_dwconv_nchwc_params> params;
  params->CB = c.G;
  params->tile_pixels = tile.pixels;
  setWindow(params, params->window, g);
  params->activation = activation.kernel();
  params->reuse_inputs = tile.reuseInputs ? 1 : 0;
  return ctx.callKernel(kDepthwiseNCHWcKernels.forBlock(c.K),
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::optionalPointer(node.input(3)),
                         KernelArg::pointer(node.output(0)), KernelArg::params(params)},
                        c.N * c.G * g.OH, blockedConvolutionFlops(node, g));
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0), *w = node.input(1);
  Expected<BlockedConv> c = describe(node, x->type().shape, w->type().shape);
  CUVIL_TRY(c.status());
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  if (c->depthwise)
    return lowerDepthwise(node, ctx, *c, *activation);
  // A pointwise convolution of a static image sees its pixels as one run,
  // re-cut into rows whose width suits the register tile better than the
  // image's.
  WindowGeometry::Window2D window = c->window;
  bool pointwise = c->KH == 1 && c->KW == 1 && window.SH == 1 && window.SW == 1 &&
                   window.PT.is(0) && window.PL.is(0) && window.PB.is(0) && window.PR.is(0) &&
                   !c->plain && window.H.isConstant() && window.W.isConstant();
  if (pointwise) {
    int64_t pixels = window.H.constant() * window.W.constant(), width = window.OW.constant();
    for (int64_t candidate = kPointwiseRow; candidate > width; --candidate)
      if (pixels % candidate == 0) {
        width = candidate;
        break;
      }
    window.W = window.OW = width;
    window.H = window.OH = pixels / width;
  }
  // Tiles and steps are chosen for the opt shape; any of them is right at
  // every extent.
  const CpuModel &cpu = ctx.cpu();
  const int64_t rowWidth = window.OW.opt();
  ParamBlock<cuvil_conv_nchwc_params> params;
  params->groups = c->G;
  params->OCB = c->OCB;
  setWindow(params, params->window, window);
  params->activation = activation->kernel();
  // A grouped convolution's output blocks each have their own window.
  const bool grouped = c->groupOut > 0;
  params->tile = chooseConvTile(grouped ? 1 : c->OCB, rowWidth, c->K, cpu);
  params->plain_input = c->plain ? 1 : 0;
  int64_t channels = node.getInt("input_channels", c->G * c->K);
  params->last_group_channels = c->plain ? 1 : (grouped ? c->K : channels - (c->G - 1) * c->K);
  params->border_runs = borderPixels(window) >= 2 * params->tile.pixels ? 1 : 0;
  params->input_blocks = c->ICB;
  params->group_in_channels = c->groupIn;
  params->group_out_channels = c->groupOut;
  int64_t groupWeightBytes =
      params->tile.blocks * c->KH * c->KW * (c->plain ? 1 : c->K) * c->K * int64_t(sizeof(float));
  int64_t weightBytes = w->type().byteSize().constant();
  params->groups_per_step = convGroupsPerStep(c->G, groupWeightBytes, cpu);
  params->rows_per_run =
      convRowsPerRun(rowWidth * params->tile.blocks * c->K * int64_t(sizeof(float)), cpu);
  params->prefetch_weights = weightsStreamFromMemory(weightBytes, cpu) ? 1 : 0;
  params->rows_outer = splitRows(x->type().byteSize().opt(), weightBytes) ? 1 : 0;
  int64_t groups = (c->OCB + params->tile.blocks - 1) / params->tile.blocks;
  return ctx.callKernel(kConvNCHWcKernels.forBlock(c->K),
                        {KernelArg::pointer(x), KernelArg::pointer(w),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::optionalPointer(node.input(3)),
                         KernelArg::pointer(node.output(0)), KernelArg::params(params)},
                        c->N * groups * window.OH, blockedConvolutionFlops(node, c->window));
}

} // namespace

extern const OpDefinition kConvNCHWcOp = {
    OpSchema{"cuvil.ConvNCHWc", 2, 4, 1, 1,
             windowAttributes({{"activation", AttrKind::String},
                               {"activation_params", AttrKind::Floats},
                               {"depthwise", AttrKind::Int},
                               {"group", AttrKind::Int},
                               {"group_channels", AttrKind::Ints},
                               {"input_channels", AttrKind::Int},
                               {"plain_input", AttrKind::Int}}),
             infer, eval},
    lower};

} // namespace cuvil::ops
