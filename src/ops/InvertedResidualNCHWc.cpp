// cuvil.InvertedResidualNCHWc: MobileNetV2's inverted residual block in the
// blocked NCHWc layout (block K = 16 or 8), made by the
// fuse-inverted-residual pass from a cuvil.ConvNCHWc chain: an expansion
// (usually 1x1; also a network's stem), a depthwise convolution and a 1x1
// projection (see src/kernels/InvertedResidualNCHWc.cpp):
//   e = expand_activation(conv(X, We) + Be)             (absent without We;
//                                                        expand_* window)
//   d = depthwise_activation(depthwise(e, Wd) + Bd)     (window attributes)
//   y = activation(conv1x1(d, Wp) + Bp + Residual)
// Inputs: X, Wd, Wp, then the optional Bd, Bp, We, Be, Residual, packed
// as the ConvNCHWc ones: X [N, XG, XH, XW, K] (plain [N, C, XH, XW] when
// `expand_plain_input`), We [ECB, XG, KH, KW, K(, K)], Wd [ECB, KH, KW, K],
// Wp [OCB, ECB, 1, 1, K, K]; y and Residual [N, OCB, OH, OW, K].
// `input_channels` and `expanded_channels` are the real channels of X and e
// when their last block is partly padding. The target decides
// (planForTarget, called by the fusion pass) `band_bytes`, the L2 share one
// band's scratch stays within, and `max_parts`, the most parts an image's
// rows are split into. The second result is the kernel's scratch: per task
// (a part of an image's output rows) the expanded rows of one band and its
// depthwise result.
#include "ChannelBlock.h"
#include "ConvTiling.h"
#include "FusedActivation.h"
#include "OpSupport.h"
#include "cuvil/kernels/Conv.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

enum Input { kX, kWd, kWp, kBd, kBp, kWe, kBe, kResidual };

// Tasks per image: up to max_parts parts (a power of two, so that 1, 2, 4
// or 8 threads get even shares) of at least kMinPartRows output rows each,
// since every part expands its halo rows again.
constexpr int64_t kMinPartRows = 8;

struct Block {
  int64_t N, XG, XH, XW, ECB, EH, EW, OCB, K;
  bool expand, plain;
  // The expansion's window over x (attributes expand_kernel_shape,
  // expand_strides, expand_pads and expand_dilations: a 1x1 unpadded one by
  // default) and the depthwise one over e.
  WindowGeometry::StaticWindow2D ew, window;
  int64_t parts, bandRows;

  int64_t inputRows(int64_t outputRows) const {
    return std::min(EH, (outputRows - 1) * window.SH + (window.KH - 1) * window.DH + 1);
  }
  int64_t expandedRows() const { return expand ? inputRows(bandRows) : 0; }
  int64_t slotFloats(int64_t rows) const {
    return ECB * K * ((expand ? inputRows(rows) * EW : 0) + rows * window.OW);
  }
  int64_t tasks() const { return N * parts; }
  int64_t scratchFloats() const { return tasks() * slotFloats(bandRows); }
};

bool isPointwiseWeight(const std::vector<int64_t> &w, int64_t K) {
  return w.size() == 6 && w[2] == 1 && w[3] == 1 && w[4] == K && w[5] == K;
}

// The block's scratch bands and parts are laid out for static shapes: the
// fusion pass fuses only those.
Expected<Block> describe(const Node &node, std::span<const Shape *const> in) {
  Block b{};
  for (const Shape *shape : in)
    if (shape && !isStatic(*shape))
      return Status::error(
          fmt::format("[{}]: the fused block needs static shapes", shapeToString(*shape)));
  const std::vector<int64_t> x = staticDims(*in[kX]), wd = staticDims(*in[kWd]),
                             wp = staticDims(*in[kWp]);
  b.K = wd.size() == 4 ? wd[3] : 0;
  b.expand = in[kWe] != nullptr;
  b.plain = node.getInt("expand_plain_input", 0) != 0;
  bool blocked = isChannelBlock(b.K) && isPointwiseWeight(wp, b.K) &&
                 x.size() == (b.plain ? 4u : 5u) && (b.plain || x[4] == b.K) &&
                 (b.expand || !b.plain);
  if (!blocked)
    return Status::error(fmt::format("X [{}], Wd [{}] and Wp [{}] are not in the blocked layout",
                                     shapeToString(*in[kX]), shapeToString(*in[kWd]),
                                     shapeToString(*in[kWp])));
  b.N = x[0];
  b.XG = x[1];
  b.XH = x[2];
  b.XW = x[3];
  b.ECB = wd[0];
  b.OCB = wp[0];
  Expected<WindowGeometry> ew = windowGeometry(
      node, {b.XH, b.XW}, node.getInts("expand_kernel_shape", {1, 1}), false, "expand_");
  CUVIL_TRY(ew.status().withContext("the expansion"));
  if (ew->input.size() != 2)
    return Status::error("the expansion window must be 2-D");
  b.ew = ew->as2D().constant();
  b.EH = b.expand ? b.ew.OH : b.XH;
  b.EW = b.expand ? b.ew.OW : b.XW;
  if (b.expand) {
    const Shape &we = *in[kWe];
    Shape expected = {b.ECB, b.XG, b.ew.KH, b.ew.KW, b.K};

    if (!b.plain)
      expected.push_back(b.K);
    if (we != expected)
      return Status::error(fmt::format("We [{}] is not the packed [{}]", shapeToString(we),
                                       shapeToString(expected)));
    if (b.EH <= 0 || b.EW <= 0)
      return Status::error("the expansion's window leaves no output");
  } else if (b.ECB != b.XG) {
    return Status::error(
        fmt::format("Wd [{}] does not match {} input blocks", shapeToString(*in[kWd]), b.XG));
  }
  if (wp[1] != b.ECB)
    return Status::error(
        fmt::format("Wp [{}] does not match {} expanded blocks", shapeToString(*in[kWp]), b.ECB));
  Expected<WindowGeometry> g = windowGeometry(node, {b.EH, b.EW}, {wd[1], wd[2]}, false);
  CUVIL_TRY(g.status());
  b.window = g->as2D().constant();
  const int64_t OH = b.window.OH, maxParts = node.getInt("max_parts", 0);
  const int64_t bandBytes = node.getInt("band_bytes", 0);
  if (maxParts < 1 || bandBytes < 1)
    return Status::error("attributes max_parts and band_bytes are missing (planForTarget sets "
                         "them)");
  b.parts = 1;
  while (b.parts < maxParts && OH / (2 * b.parts) >= kMinPartRows)
    b.parts *= 2;
  // Bands as large as the budget allows, then evened out over the part.
  int64_t partRows = (OH + b.parts - 1) / b.parts, maxBand = 1;
  while (maxBand < partRows && b.slotFloats(maxBand + 1) * int64_t(sizeof(float)) <= bandBytes)
    ++maxBand;
  int64_t bands = (partRows + maxBand - 1) / maxBand;
  b.bandRows = (partRows + bands - 1) / bands;
  return b;
}

std::vector<const Shape *> inputShapes(const Node &node) {
  std::vector<const Shape *> shapes(kResidual + 1, nullptr);
  for (size_t i = 0; i < shapes.size(); ++i)
    if (const Value *v = node.input(i))
      shapes[i] = &v->type().shape;
  return shapes;
}

struct Activations {
  FusedActivation expand, depthwise, project;
};

Expected<Activations> activations(const Node &node) {
  Expected<FusedActivation> e = fusedActivation(node, "expand_");
  CUVIL_TRY(e.status());
  Expected<FusedActivation> d = fusedActivation(node, "depthwise_");
  CUVIL_TRY(d.status());
  Expected<FusedActivation> p = fusedActivation(node);
  CUVIL_TRY(p.status());
  return Activations{*e, *d, *p};
}

Status infer(InferContext &ctx) {
  if (ctx.hasInput(kBe) && !ctx.hasInput(kWe))
    return ctx.error("an expansion bias needs expansion weights");
  Expected<Block> b = describe(ctx.node(), inputShapes(ctx.node()));
  CUVIL_TRY(b.status());
  CUVIL_TRY(activations(ctx.node()).status());
  for (auto [input, blocks] :
       {std::pair{kBe, b->ECB}, std::pair{kBd, b->ECB}, std::pair{kBp, b->OCB}})
    if (ctx.hasInput(input) && ctx.inputShape(input) != Shape{blocks * b->K})
      return ctx.error("bias {} has shape [{}], expected [{}]", int(input),
                       shapeToString(ctx.inputShape(input)), blocks * b->K);
  TensorType out{DType::F32, {b->N, b->OCB, b->window.OH, b->window.OW, b->K}};
  if (ctx.hasInput(kResidual) && ctx.inputType(kResidual) != out)
    return ctx.error("the residual is {}, the result {}", ctx.inputType(kResidual).str(),
                     out.str());
  ctx.setOutput(0, out);
  ctx.setOutput(1, TensorType{DType::F32, {b->scratchFloats()}});
  return Status::success();
}

// The three convolutions one after another, in double precision.
Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  auto input = [&](Input i) { return size_t(i) < in.size() ? in[i] : nullptr; };
  std::vector<const Shape *> shapes(kResidual + 1, nullptr);
  for (size_t i = 0; i < shapes.size(); ++i)
    if (const Tensor *t = input(Input(i)))
      shapes[i] = &t->shape();
  Block b = *describe(node, shapes);
  Expected<Activations> act = activations(node);
  CUVIL_TRY(act.status());
  const WindowGeometry::StaticWindow2D &g = b.window;
  const int64_t K = b.K, EC = b.ECB * K;
  auto bias = [&](Input i, int64_t c) { return input(i) ? input(i)->getDouble(c) : 0.0; };
  const WindowGeometry::StaticWindow2D &win = b.ew;
  const int64_t inputChannels = b.plain ? b.XG : b.XG * K;
  std::vector<double> e(EC * b.EH * b.EW), d(EC * g.OH * g.OW);
  for (int64_t n = 0; n < b.N; ++n) {
    const Tensor &x = *in[kX];
    auto xAt = [&](int64_t c, int64_t h, int64_t w) {
      return b.plain ? x.getDouble(((n * b.XG + c) * b.XH + h) * b.XW + w)
                     : x.getDouble((((n * b.XG + c / K) * b.XH + h) * b.XW + w) * K + c % K);
    };
    auto weAt = [&](int64_t c, int64_t i, int64_t kh, int64_t kw) {
      int64_t tap = (((c / K) * b.XG + (b.plain ? i : i / K)) * win.KH + kh) * win.KW + kw;
      return in[kWe]->getDouble(b.plain ? tap * K + c % K : (tap * K + i % K) * K + c % K);
    };
    for (int64_t c = 0; c < EC; ++c)
      for (int64_t eh = 0; eh < b.EH; ++eh)
        for (int64_t ew = 0; ew < b.EW; ++ew) {
          double &value = e[(c * b.EH + eh) * b.EW + ew];
          if (!b.expand) {
            value = xAt(c, eh, ew);
            continue;
          }
          double sum = bias(kBe, c);
          for (int64_t i = 0; i < inputChannels; ++i)
            for (int64_t kh = 0; kh < win.KH; ++kh)
              for (int64_t kw = 0; kw < win.KW; ++kw) {
                int64_t ih = eh * win.SH - win.PT + kh * win.DH,
                        iw = ew * win.SW - win.PL + kw * win.DW;
                if (ih >= 0 && ih < b.XH && iw >= 0 && iw < b.XW)
                  sum += xAt(i, ih, iw) * weAt(c, i, kh, kw);
              }
          value = act->expand.apply(sum);
        }
    for (int64_t c = 0; c < EC; ++c)
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          double sum = bias(kBd, c);
          for (int64_t kh = 0; kh < g.KH; ++kh)
            for (int64_t kw = 0; kw < g.KW; ++kw) {
              int64_t ih = oh * g.SH - g.PT + kh * g.DH, iw = ow * g.SW - g.PL + kw * g.DW;
              if (ih >= 0 && ih < b.EH && iw >= 0 && iw < b.EW)
                sum += e[(c * b.EH + ih) * b.EW + iw] *
                       in[kWd]->getDouble((((c / K) * g.KH + kh) * g.KW + kw) * K + c % K);
            }
          d[(c * g.OH + oh) * g.OW + ow] = act->depthwise.apply(sum);
        }
    for (int64_t o = 0; o < b.OCB * K; ++o)
      for (int64_t pixel = 0; pixel < g.OH * g.OW; ++pixel) {
        int64_t yi = ((n * b.OCB + o / K) * g.OH * g.OW + pixel) * K + o % K;
        double sum = bias(kBp, o) + (input(kResidual) ? input(kResidual)->getDouble(yi) : 0.0);
        for (int64_t c = 0; c < EC; ++c)
          sum += d[c * g.OH * g.OW + pixel] *
                 in[kWp]->getDouble((((o / K) * b.ECB + c / K) * K + c % K) * K + o % K);
        out[0].setDouble(yi, act->project.apply(sum));
      }
  }
  return Status::success();
}

// A band's scratch stays within a quarter of L2; the parts follow the cores.
Status plan(Node &node, const CpuModel &cpu) {
  node.setAttr("band_bytes", cpu.l2Bytes / 4);
  node.setAttr("max_parts", cpu.parallelSlots());
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<Block> b = describe(node, inputShapes(node));
  CUVIL_TRY(b.status());
  Expected<Activations> act = activations(node);
  CUVIL_TRY(act.status());
  const WindowGeometry::StaticWindow2D &g = b->window;
  const int64_t K = b->K;
  const CpuModel &cpu = ctx.cpu();
  DepthwiseTile depthwiseTile = chooseDepthwiseTile(K, cpu, g.KW, g.SW, g.DW);
  auto lastBlockChannels = [&](const char *attr, int64_t blocks) {
    return node.getInt(attr, blocks * K) - (blocks - 1) * K;
  };
  cuvil_inverted_residual_params params{};
  params.expand = b->expand ? 1 : 0;
  params.XG = b->XG;
  params.plain_input = b->plain ? 1 : 0;
  params.input_last_channels = b->plain ? 1 : lastBlockChannels("input_channels", b->XG);
  params.expand_window = kernelWindow(b->ew);
  params.expand_tile = chooseConvTile(b->ECB, b->EW, K, cpu);
  params.expand_activation = act->expand.kernel();
  params.ECB = b->ECB;
  params.expanded_last_channels = lastBlockChannels("expanded_channels", b->ECB);
  params.depthwise_window = kernelWindow(g);
  params.depthwise_tile_pixels = depthwiseTile.pixels;
  params.depthwise_reuse = depthwiseTile.reuseInputs ? 1 : 0;
  params.depthwise_activation = act->depthwise.kernel();
  params.OCB = b->OCB;
  params.project_tile = chooseConvTile(b->OCB, g.OW, K, cpu);
  params.project_activation = act->project.kernel();
  params.parts = b->parts;
  params.band_rows = b->bandRows;
  params.expanded_rows = b->expandedRows();
  params.slot_floats = b->slotFloats(b->bandRows);
  std::vector<KernelArg> args;
  for (Input i : {kX, kWe, kBe, kWd, kBd, kWp, kBp, kResidual})
    args.push_back(KernelArg::optionalPointer(node.input(i)));
  args.push_back(KernelArg::pointer(node.output(0)));
  args.push_back(KernelArg::pointer(node.output(1)));
  args.push_back(KernelArg::params(params));
  // Per output pixel and channel: the three convolutions' weights over the
  // output channels (the expansion counted at the output's pixels).
  Dim weights = 0;
  for (Input i : {kWe, kWd, kWp})
    if (node.hasInput(i))
      weights += node.input(i)->type().numElements();
  const Shape &y = node.output(0)->type().shape;
  return ctx.callKernel(kInvertedResidualKernels.forBlock(K), args, b->tasks(),
                        multiplyAddFlops(node.output(0), floorDiv(weights, y[1] * y[4])));
}

} // namespace

extern const OpDefinition kInvertedResidualNCHWcOp = {
    withTargetPlan(OpSchema{"cuvil.InvertedResidualNCHWc", 3, 8, 2, 2,
                            windowAttributes({{"activation", AttrKind::String},
                                              {"activation_params", AttrKind::Floats},
                                              {"depthwise_activation", AttrKind::String},
                                              {"depthwise_activation_params", AttrKind::Floats},
                                              {"expand_activation", AttrKind::String},
                                              {"expand_activation_params", AttrKind::Floats},
                                              {"expand_dilations", AttrKind::Ints},
                                              {"expand_kernel_shape", AttrKind::Ints},
                                              {"expand_pads", AttrKind::Ints},
                                              {"expand_plain_input", AttrKind::Int},
                                              {"expand_strides", AttrKind::Ints},
                                              {"expanded_channels", AttrKind::Int},
                                              {"input_channels", AttrKind::Int},
                                              {"band_bytes", AttrKind::Int},
                                              {"max_parts", AttrKind::Int}}),
                            infer, eval},
                   plan),
    lower};

} // namespace cuvil::ops
