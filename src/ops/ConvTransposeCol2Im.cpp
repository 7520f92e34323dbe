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
  // 1-D and 2-D ones as 1 x 1 x W and 1 x H x W: axis `fromEnd` (1 the
  // innermost) or a unit axis.
  size_t rank = g.kernel.size();
  auto axis = [&](const auto &values, size_t fromEnd, auto unit) {
    using Value = std::decay_t<decltype(values[0])>;
    return fromEnd <= rank ? Value(values[rank - fromEnd]) : Value(unit);
  };
  ParamBlock<cuvil_col2im_params> params;
  params->out_channels = g.outChannels;
  params->group_channels = g.outChannels / g.group;
  const std::pair<int64_t *, Dim> extents[] = {
      {&params->ID, axis(g.input, 3, 1)},  {&params->IH, axis(g.input, 2, 1)},
      {&params->IW, axis(g.input, 1, 1)},  {&params->OD, axis(g.output, 3, 1)},
      {&params->OH, axis(g.output, 2, 1)}, {&params->OW, axis(g.output, 1, 1)}};
  for (const auto &[field, dim] : extents)
    params.set(*field, dim);
  const std::pair<int64_t *, int64_t> window[] = {
      {&params->KD, axis(g.kernel, 3, 1)},    {&params->KH, axis(g.kernel, 2, 1)},
      {&params->KW, axis(g.kernel, 1, 1)},    {&params->SD, axis(g.strides, 3, 1)},
      {&params->SH, axis(g.strides, 2, 1)},   {&params->SW, axis(g.strides, 1, 1)},
      {&params->DD, axis(g.dilations, 3, 1)}, {&params->DH, axis(g.dilations, 2, 1)},
      {&params->DW, axis(g.dilations, 1, 1)}, {&params->PF, axis(g.padsBegin, 3, 0)},
      {&params->PT, axis(g.padsBegin, 2, 0)}, {&params->PL, axis(g.padsBegin, 1, 0)}};
  for (const auto &[field, value] : window)
    *field = value;
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
