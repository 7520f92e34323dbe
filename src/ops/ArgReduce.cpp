// ArgMax / ArgMin: the index (i64) of the largest / smallest element along
// `axis`, the first of ties or with select_last_index the last; the axis is
// kept as a 1-dim with keepdims (the default) or dropped.
#include "ArgReduce.h"

#include "cuvil/kernels/Reduce.h"

namespace cuvil::ops {
namespace {

struct ArgGeometry {
  int64_t axis;
  Dim outer, axisDim, inner;
};

Expected<ArgGeometry> geometry(const Node &node, const Shape &shape) {
  Expected<int64_t> axis = normalizeAxis(node.getInt("axis", 0), int64_t(shape.size()));
  CUVIL_TRY(axis.status());
  std::span<const Dim> dims(shape);
  return ArgGeometry{*axis, numElements(dims.first(size_t(*axis))), shape[size_t(*axis)],
                     numElements(dims.subspan(size_t(*axis) + 1))};
}

template <bool Minimum> Status infer(InferContext &ctx) {
  const Shape &shape = ctx.inputShape(0);
  if (shape.empty())
    return ctx.error("expects a tensor of rank 1 or more");
  if (ctx.inputDType(0) == DType::Bool)
    return ctx.error("expects numbers, got bool");
  Expected<ArgGeometry> g = geometry(ctx.node(), shape);
  CUVIL_TRY(g.status());
  if (g->axisDim.max() == 0)
    return ctx.error("the reduced axis is empty");
  Shape out = shape;
  if (ctx.node().getInt("keepdims", 1) != 0)
    out[size_t(g->axis)] = 1;
  else
    out.erase(out.begin() + g->axis);
  ctx.setOutput(0, TensorType{DType::I64, out});
  return Status::success();
}

template <bool Minimum>
Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  ArgGeometry g = *geometry(node, x.shape());
  int64_t axisDim = g.axisDim.constant(), inner = g.inner.constant();
  bool last = node.getInt("select_last_index", 0) != 0;
  for (int64_t e = 0, n = out[0].numElements(); e < n; ++e) {
    int64_t base = (e / inner) * axisDim * inner + e % inner, bestIndex = 0;
    double best = x.getDouble(base);
    for (int64_t k = 1; k < axisDim; ++k) {
      double v = x.getDouble(base + k * inner);
      if (Minimum ? (v < best || (last && v == best)) : (v > best || (last && v == best))) {
        best = v;
        bestIndex = k;
      }
    }
    out[0].setInt(e, bestIndex);
  }
  return Status::success();
}

template <bool Minimum> Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  ArgGeometry g = *geometry(node, x->type().shape);
  Expected<const KernelRef *> kernel = argReduceKernel(x->type().dtype);
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_arg_reduce_params> params;
  params.set(params->axis_dim, g.axisDim);
  params.set(params->inner, g.inner);
  params->minimum = Minimum;
  params->select_last = node.getInt("select_last_index", 0) != 0;
  return ctx.callKernel(
      **kernel,
      {KernelArg::pointer(x), KernelArg::pointer(node.output(0)), KernelArg::params(params)},
      g.outer * g.inner);
}

template <bool Minimum> OpDefinition definition(std::string_view name) {
  std::vector<AttrSpec> attributes = {
      {"axis", AttrKind::Int}, {"keepdims", AttrKind::Int}, {"select_last_index", AttrKind::Int}};
  return {OpSchema{name, 1, 1, 1, 1, attributes, infer<Minimum>, eval<Minimum>}, lower<Minimum>};
}

} // namespace

OpDefinition argReduceDefinition(std::string_view name, bool minimum) {
  return minimum ? definition<true>(name) : definition<false>(name);
}

} // namespace cuvil::ops
