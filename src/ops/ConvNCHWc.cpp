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
// Padding channels carry zero weights and bias.
#include "ChannelBlock.h"
#include "ConvTiling.h"
#include "FusedActivation.h"
#include "OpSupport.h"
#include "cuvil/ir/WindowGeometry.h"

namespace cuvil::ops {
namespace {

// Widest row a pointwise convolution's pixels are re-cut into.
constexpr int64_t kPointwiseRow = 64;
struct BlockedConv {
  int64_t N, G, IH, IW, OCB, KH, KW, K;
  bool plain, depthwise;
  WindowGeometry::Window2D window;
};

Expected<BlockedConv> describe(const Node &node, const Shape &x, const Shape &w) {
  BlockedConv c{};
  c.plain = node.getInt("plain_input", 0) != 0;
  c.depthwise = node.getInt("depthwise", 0) != 0;
  size_t xRank = c.plain ? 4 : 5, wRank = c.depthwise ? 4 : (c.plain ? 5 : 6);
  c.K = w.empty() ? 0 : w.back();
  bool blocked = x.size() == xRank && w.size() == wRank && isChannelBlock(c.K) &&
                 (c.plain || x[4] == c.K) && (wRank != 6 || w[4] == c.K);
  if (!blocked)
    return Status::error(fmt::format("X [{}] and W [{}] are not in the blocked layout",
                                     shapeToString(x), shapeToString(w)));
  c.N = x[0];
  c.G = x[1];
  c.IH = x[2];
  c.IW = x[3];
  c.OCB = w[0];
  c.KH = c.depthwise ? w[1] : w[2];
  c.KW = c.depthwise ? w[2] : w[3];
  if ((c.depthwise && c.OCB != c.G) || (!c.depthwise && w[1] != c.G))
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
  const int64_t K = c.K;
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t ocb = 0; ocb < c.OCB; ++ocb)
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow)
          for (int64_t o = 0; o < K; ++o) {
            double sum = bias ? bias->getDouble(ocb * K + o) : 0.0;
            for (int64_t kh = 0; kh < c.KH; ++kh)
              for (int64_t kw = 0; kw < c.KW; ++kw) {
                int64_t ih = oh * g.SH - g.PT + kh * g.DH, iw = ow * g.SW - g.PL + kw * g.DW;
                if (ih < 0 || ih >= c.IH || iw < 0 || iw >= c.IW)
                  continue;
                if (c.depthwise) {
                  sum += x.getDouble((((n * c.G + ocb) * c.IH + ih) * c.IW + iw) * K + o) *
                         w.getDouble(((ocb * c.KH + kh) * c.KW + kw) * K + o);
                  continue;
                }
                for (int64_t grp = 0; grp < c.G; ++grp)
                  for (int64_t i = 0; i < (c.plain ? 1 : K); ++i) {
                    double xv =
                        c.plain ? x.getDouble(((n * c.G + grp) * c.IH + ih) * c.IW + iw)
                                : x.getDouble((((n * c.G + grp) * c.IH + ih) * c.IW + iw) * K + i);
                    int64_t wi =
                        c.plain ? (((ocb * c.G + grp) * c.KH + kh) * c.KW + kw) * K + o
                                : ((((ocb * c.G + grp) * c.KH + kh) * c.KW + kw) * K + i) * K + o;
                    sum += xv * w.getDouble(wi);
                  }
              }
            int64_t yi = (((n * c.OCB + ocb) * g.OH + oh) * g.OW + ow) * K + o;
            if (residual)
              sum += residual->getDouble(yi);
            out[0].setDouble(yi, applyActivation(*activation, sum));
          }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0), *w = node.input(1);
  Expected<BlockedConv> c = describe(node, x->type().shape, w->type().shape);
  CUVIL_TRY(c.status());
  Expected<FusedActivation> activation = fusedActivation(node);
  CUVIL_TRY(activation.status());
  const WindowGeometry::Window2D &g = c->window;
  std::vector<KernelArg> args = {
      KernelArg::pointer(x), KernelArg::pointer(w), KernelArg::optionalPointer(node.input(2)),
      KernelArg::optionalPointer(node.input(3)), KernelArg::pointer(node.output(0))};
  if (c->depthwise) {
    DepthwiseTile tile = chooseDepthwiseTile(c->K, ctx.vectorLanes(), c->KW, g.SW, g.DW);
    args.push_back(KernelArg::constantArray({c->G, c->IH, c->IW, g.OH, g.OW, c->KH, c->KW, g.SH,
                                             g.SW, g.PT, g.PL, g.DH, g.DW, activation->code,
                                             tile.pixels, tile.reuseInputs ? 1 : 0}));
    args.push_back(KernelArg::constantF32(activation->alpha));
    args.push_back(KernelArg::constantF32(activation->beta));
    ctx.callKernel(blockedKernel("dwconv", c->K), args, c->N * c->G * g.OH);
    return Status::success();
  }
  // A pointwise convolution sees its pixels as one run, re-cut into rows
  // whose width suits the register tile better than the image's.
  int64_t IH = c->IH, IW = c->IW, OH = g.OH, OW = g.OW;
  bool pointwise = c->KH == 1 && c->KW == 1 && g.SH == 1 && g.SW == 1 && g.PT == 0 && g.PL == 0 &&
                   g.PB == 0 && g.PR == 0 && !c->plain;
  if (pointwise) {
    int64_t pixels = IH * IW, width = OW;
    for (int64_t candidate = kPointwiseRow; candidate > OW; --candidate)
      if (pixels % candidate == 0) {
        width = candidate;
        break;
      }
    IW = OW = width;
    IH = OH = pixels / width;
  }
  int64_t channels = node.getInt("input_channels", c->G * c->K);
  int64_t lastGroupChannels = c->plain ? 1 : channels - (c->G - 1) * c->K;
  ConvTile tile = chooseConvTile(c->OCB, OW, c->K, ctx.vectorLanes());
  int64_t groupWeightBytes =
      tile.blocks * c->KH * c->KW * (c->plain ? 1 : c->K) * c->K * int64_t(sizeof(float));
  args.push_back(KernelArg::constantArray(
      {c->N,
       c->G,
       IH,
       IW,
       c->OCB,
       OH,
       OW,
       c->KH,
       c->KW,
       g.SH,
       g.SW,
       g.PT,
       g.PL,
       g.DH,
       g.DW,
       activation->code,
       c->plain ? 1 : 0,
       tile.pixels,
       tile.blocks,
       lastGroupChannels,
       convGroupsPerStep(c->G, groupWeightBytes),
       convRowsPerRun(OW * tile.blocks * c->K * int64_t(sizeof(float))),
       weightsStreamFromMemory(int64_t(w->type().byteSize())) ? 1 : 0,
       splitRows(int64_t(x->type().byteSize()), int64_t(w->type().byteSize())) ? 1 : 0}));
  args.push_back(KernelArg::constantF32(activation->alpha));
  args.push_back(KernelArg::constantF32(activation->beta));
  int64_t groups = (c->OCB + tile.blocks - 1) / tile.blocks;
  ctx.callKernel(blockedKernel("conv", c->K), args, c->N * groups * OH);
  return Status::success();
}

} // namespace

extern const OpDefinition kConvNCHWcOp = {
    OpSchema{"cuvil.ConvNCHWc", 2, 4, 1, 1,
             windowAttributes({{"activation", AttrKind::String},
                               {"activation_params", AttrKind::Floats},
                               {"depthwise", AttrKind::Int},
                               {"input_channels", AttrKind::Int},
                               {"plain_input", AttrKind::Int}}),
             infer, eval},
    lower};

} // namespace cuvil::ops
