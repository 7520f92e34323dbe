#include "ConvCommon.h"

#include "MatMulCommon.h"
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
  StaticWindow g(*geometry);
  int64_t N = x.dim(0), C = x.dim(1), M = w.dim(0);
  int64_t groups = node.getInt("group", 1), Cg = C / groups, Mg = M / groups;
  int64_t inVolume = product(g.input), taps = product(g.kernel), yi = 0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      forEachIndex(g.output, [&](const std::vector<int64_t> &out) {
        double sum = b ? b->getDouble(m) : 0.0;
        for (int64_t c = 0; c < Cg; ++c) {
          const int64_t xBase = (n * C + (m / Mg) * Cg + c) * inVolume;
          int64_t wi = (m * Cg + c) * taps;
          forEachIndex(g.kernel, [&](const std::vector<int64_t> &tap) {
            if (int64_t offset = g.inputOffset(out, tap); offset >= 0)
              sum += x.getDouble(xBase + offset) * w.getDouble(wi);
            ++wi;
          });
        }
        if (residual)
          sum += residual->getDouble(yi);
        y.setDouble(yi++, activation.apply(sum));
      });
  return Status::success();
}

namespace {

// Whether a 1-D or 2-D convolution in plain layout runs faster as GEMMs
// over vol2col panels than in the direct kernel, from the cycles each spends
// on one (output pixel, tap) pair of a group's Mg output channels:
//   direct:  per channel, a load of x and a load and store of y
//   vol2col: the tap's input packed once (a load and a store), then Mg FMAs
//            in the GEMM's register tile
// Both read x in vectors only at unit stride along the row; y is always
// contiguous. A depthwise convolution (Mg = 1) stays direct; a long strided
// kernel (an STFT as a convolution) or many output channels go to GEMM.
bool preferVol2colGemm(const CpuModel &cpu, const WindowGeometry &geometry, int64_t Mg) {
  const double lanes = cpu.vectorLanes(), loads = cpu.loadsPerCycle, fmas = cpu.fmaPerCycle;
  const double xAccess = geometry.strides.back() == 1 ? 1.0 / lanes : 1.0;
  const double direct = double(Mg) * (xAccess + 2.0 / lanes) / loads;
  const double vol2col = 2.0 * xAccess / loads + double(Mg) / (lanes * fmas);
  return vol2col < direct;
}

// GEMMs over vol2col panels (src/kernels/Conv3d.cpp); 1-D and 2-D windows
// as 3-D ones of depth 1.
Status lowerConv3d(const Node &node, LoweringContext &ctx, const WindowGeometry &geometry,
                   const Value *residual, const FusedActivation &activation) {
  const Value *x = node.input(0), *w = node.input(1);
  ParamBlock<cuvil_conv3d_params> params;
  params->C = x->type().shape[1].constant();
  params.set(params->M, w->type().shape[0]);
  params->groups = node.getInt("group", 1);
  setWindow(params, params->window, geometry.as3D());
  params->activation = activation.kernel();
  // Tiling is a cost decision: it takes the shape the static path serves.
  params->tile = chooseGemmTile(ctx.cpu(), w->type().shape[0].opt() / params->groups);
  params->chunk_k = chooseChunkK(ctx.cpu());
  Dim panels = ceilDiv(numElements(geometry.output), kGemmPanel);
  return ctx.callKernel(kConv3dKernel,
                        {KernelArg::pointer(x), KernelArg::pointer(w),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::optionalPointer(residual), KernelArg::pointer(node.output(0)),
                         KernelArg::params(params)},
                        x->type().shape[0] * params->groups * panels,
                        convolutionFlops(node.output(0), w, w->type().shape[0]));
}

} // namespace

Status lowerConv(const Node &node, LoweringContext &ctx, const Value *residual,
                 const FusedActivation &activation) {
  const Value *x = node.input(0), *w = node.input(1);
  if (x->type().dtype != DType::F32)
    return Status::error(
        fmt::format("element type {} is not supported", dtypeName(x->type().dtype)));
  Expected<WindowGeometry> geometry = convGeometry(node, x->type().shape, w->type().shape);
  CUVIL_TRY(geometry.status());
  if (geometry->input.size() > 3)
    return Status::error("only 1-D, 2-D and 3-D convolutions are supported");
  const int64_t groups = node.getInt("group", 1);
  if (geometry->input.size() == 3 ||
      preferVol2colGemm(ctx.cpu(), *geometry, w->type().shape[0].opt() / groups))
    return lowerConv3d(node, ctx, *geometry, residual, activation);
  ParamBlock<cuvil_conv2d_params> params;
  params->C = x->type().shape[1].constant();
  params.set(params->M, w->type().shape[0]);
  params->groups = groups;
  setWindow(params, params->window, geometry->as2D());
  params->activation = activation.kernel();
  return ctx.callKernel(kConv2dKernel,
                        {KernelArg::pointer(x), KernelArg::pointer(w),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::optionalPointer(residual), KernelArg::pointer(node.output(0)),
                         KernelArg::params(params)},
                        x->type().shape[0] * w->type().shape[0],
                        convolutionFlops(node.output(0), w, w->type().shape[0]));
}

} // namespace cuvil::ops
