// Hardmax: 1 at the first largest element along `axis` (default -1), 0
// elsewhere. Before opset 13 it worked on the input flattened to 2-D at the
// axis; the importer's adapter rewrites that form (Flatten, Hardmax(-1),
// Reshape), as for Softmax.
#include "OpSupport.h"
#include "cuvil/kernels/Reduce.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  DType dtype = ctx.inputDType(0);
  if (dtype != DType::F32 && dtype != DType::F64)
    return ctx.error("element type {} is not supported", dtypeName(dtype));
  CUVIL_TRY(splitAtAxis(ctx.inputShape(0), ctx.node().getInt("axis")).status());
  ctx.setOutput(0, TensorType{dtype, ctx.inputShape(0)});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  AxisSplit g = *splitAtAxis(x.shape(), node.getInt("axis"));
  int64_t outer = g.outer.constant(), n = g.axisDim.constant(), inner = g.inner.constant();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t a) { return (o * n + a) * inner + i; };
      int64_t best = 0;
      for (int64_t a = 1; a < n; ++a)
        if (x.getDouble(at(a)) > x.getDouble(at(best)))
          best = a;
      for (int64_t a = 0; a < n; ++a)
        out[0].setDouble(at(a), a == best ? 1.0 : 0.0);
    }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  Expected<AxisSplit> g = splitAtAxis(x->type().shape, node.getInt("axis"));
  CUVIL_TRY(g.status());
  Expected<const KernelRef *> kernel = hardmaxKernel(x->type().dtype);
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_hardmax_params> params;
  params.set(params->axis_dim, g->axisDim);
  params.set(params->inner, g->inner);
  return ctx.callKernel(
      **kernel,
      {KernelArg::pointer(x), KernelArg::pointer(node.output(0)), KernelArg::params(params)},
      g->outer * g->inner);
}

} // namespace

extern const OpDefinition kHardmaxOp = {
    OpSchema{"Hardmax", 1, 1, 1, 1, {{"axis", AttrKind::Int, Attribute(int64_t(-1))}}, infer, eval},
    lower};

} // namespace cuvil::ops
