// cuvil.DeformIm2Col(X, offset, [mask]): the columns of a DeformConv as
// canonicalize rewrites it (CanonicalizeGeometry.cpp). X comes channels
// last, [N, H, W, C]; the columns are [N, group, OH x OW, taps x C/group]:
// for every output pixel and tap, the point the offset moves it to, sampled
// bilinearly from the group's channels and scaled by the mask
// (include/cuvil/kernels/Sampling.h). The attributes are the DeformConv's,
// with kernel_shape always given. f32.
#include "DeformConvCommon.h"
#include "cuvil/kernels/Sampling.h"

namespace cuvil::ops {
namespace {

// X's dims as [N, C, H, W].
Shape channelsFirst(const Shape &x) { return x.size() == 4 ? Shape{x[0], x[3], x[1], x[2]} : x; }

Expected<DeformGeometry> geometry(const InferContext &ctx) {
  return deformGeometry(ctx, channelsFirst(ctx.inputShape(0)), ctx.node().getInts("kernel_shape"),
                        1, 2);
}

Status infer(InferContext &ctx) {
  Expected<DeformGeometry> g = geometry(ctx);
  CUVIL_TRY(g.status());
  ctx.setOutput(0, TensorType{DType::F32,
                              {ctx.inputShape(0)[0], Dim(g->groups),
                               g->window.output[0] * g->window.output[1],
                               Dim(g->taps * g->channels / g->groups)}});
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  static const KernelRef kDeformIm2Col = CUVIL_KERNEL_REF(cuvil_deform_im2col_f32);
  DeformGeometry g = *geometry(InferContext(node));
  const Shape &x = node.input(0)->type().shape;
  const WindowGeometry &w = g.window;
  ParamBlock<cuvil_deform_im2col_params> params;
  params->channels = g.channels;
  params.set(params->height, x[1]);
  params.set(params->width, x[2]);
  params.set(params->out_height, w.output[0]);
  params.set(params->out_width, w.output[1]);
  params->kernel_height = w.kernel[0];
  params->kernel_width = w.kernel[1];
  params->stride_height = w.strides[0];
  params->stride_width = w.strides[1];
  params->dilation_height = w.dilations[0];
  params->dilation_width = w.dilations[1];
  params.set(params->pad_top, w.padsBegin[0]);
  params.set(params->pad_left, w.padsBegin[1]);
  params->groups = g.groups;
  params->offset_groups = g.offsetGroups;
  return ctx.callKernel(kDeformIm2Col,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::pointer(node.output(0)), KernelArg::params(params)},
                        x[0] * w.output[0]);
}

} // namespace

extern const OpDefinition kDeformIm2ColOp = {
    OpSchema{"cuvil.DeformIm2Col", 2, 3, 1, 1, deformAttributes(), infer, nullptr}, lower};

} // namespace cuvil::ops
