// cuvil.ConvTransposeCol2Im(cols, x, [bias]): the second half of a
// ConvTranspose as canonicalize rewrites it. cols [N, group, L, OC/group * K]
// is the input [N, group, L, C/group] times the weights [group, C/group,
// OC/group * K] (L the input's pixels, K the kernel's taps); this scatters
// each tap into the output [N, OC, out...] and adds the bias. x, the
// ConvTranspose's input, gives only its shape; the attributes are the
// ConvTranspose's, with kernel_extents and out_channels from its weights.
#include "ConvTransposeCommon.h"
#include "cuvil/kernels/Conv.h"

namespace cuvil::ops {
namespace {

Expected<ConvTransposeGeometry> geometry(const Node &node, const Shape &x) {
  return convTransposeGeometry(node, x, node.getInt("out_channels"),
                               node.getInts("kernel_extents"));
}

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(1), &cols = ctx.inputShape(0);
  Expected<ConvTransposeGeometry> g = geometry(ctx.node(), x);
  CUVIL_TRY(g.status());
  int64_t taps = 1;
  for (int64_t k : g->kernel)
    taps *= k;
  Shape expected = {x[0], Dim(g->group), numElements(g->input),
                    Dim(g->outChannels / g->group * taps)};
  if (!(cols == expected))
    return ctx.error("cols is [{}], expected [{}]", shapeToString(cols), shapeToString(expected));
  Shape out = {x[0], Dim(g->outChannels)};
  out.insert(out.end(), g->output.begin(), g->output.end());
  ctx.setOutput(0, TensorType{DType::F32, out});
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Shape &x = node.input(1)->type().shape;
  ConvTransposeGeometry g = *geometry(node, x);
  bool twoD = g.kernel.size() == 2;
  ParamBlock<cuvil_col2im_params> params;
  params->out_channels = g.outChannels;
  params->group_channels = g.outChannels / g.group;
  params.set(params->IH, twoD ? g.input[0] : Dim(1));
  params.set(params->IW, g.input.back());
  params.set(params->OH, twoD ? g.output[0] : Dim(1));
  params.set(params->OW, g.output.back());
  params->KH = twoD ? g.kernel[0] : 1;
  params->KW = g.kernel.back();
  params->SH = twoD ? g.strides[0] : 1;
  params->SW = g.strides.back();
  params->DH = twoD ? g.dilations[0] : 1;
  params->DW = g.dilations.back();
  params->PT = twoD ? g.padsBegin[0] : 0;
  params->PL = g.padsBegin.back();
  static const KernelRef kCol2Im = CUVIL_KERNEL_REF(cuvil_col2im_f32);
  return ctx.callKernel(kCol2Im,
                        {KernelArg::pointer(node.input(0)),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::pointer(node.output(0)), KernelArg::params(params)},
                        x[0] * g.outChannels);
}

std::vector<AttrSpec> attributes() {
  std::vector<AttrSpec> specs = convTransposeAttributes();
  specs.push_back({"kernel_extents", AttrKind::Ints, std::nullopt, /*required=*/true});
  specs.push_back({"out_channels", AttrKind::Int, std::nullopt, /*required=*/true});
  return specs;
}

} // namespace

extern const OpDefinition kConvTransposeCol2ImOp = {
    OpSchema{"cuvil.ConvTransposeCol2Im", 2, 3, 1, 1, attributes(), infer, nullptr}, lower};

} // namespace cuvil::ops
