// Where: y = cond ? x : y elementwise, all three broadcast together.
#include "OpSupport.h"
#include "cuvil/kernels/Elementwise.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  if (ctx.inputDType(0) != DType::Bool)
    return ctx.error("the condition must be bool, got {}", dtypeName(ctx.inputDType(0)));
  if (ctx.inputDType(1) != ctx.inputDType(2))
    return ctx.error("the branches differ in type: {} and {}", dtypeName(ctx.inputDType(1)),
                     dtypeName(ctx.inputDType(2)));
  Expected<Shape> partial = broadcastShapes(ctx.inputShape(0), ctx.inputShape(1));
  CUVIL_TRY(partial.status());
  Expected<Shape> out = broadcastShapes(*partial, ctx.inputShape(2));
  CUVIL_TRY(out.status());
  ctx.setOutput(0, TensorType{ctx.inputDType(1), *out});
  // Where(Equal(shape, -1), ones, shape) in exported Expand targets.
  std::optional<std::vector<Dim>> cond = inputDimValues(ctx, 0), a = inputDimValues(ctx, 1),
                                  b = inputDimValues(ctx, 2);
  if (cond && a && b && isStatic(*cond) && (ctx.inputDims(1) || ctx.inputDims(2)) &&
      carriesDimValues(ctx, 0)) {
    size_t n = std::max({cond->size(), a->size(), b->size()});
    auto at = [n](const std::vector<Dim> &v, size_t i) -> const Dim * {
      return v.size() == n ? &v[i] : v.size() == 1 ? &v[0] : nullptr;
    };
    std::vector<Dim> chosen;
    for (size_t i = 0; i < n; ++i) {
      const Dim *c = at(*cond, i), *x = at(*a, i), *y = at(*b, i);
      if (!c || !x || !y)
        return Status::success();
      chosen.push_back(c->constant() ? *x : *y);
    }
    ctx.setOutputDims(0, std::move(chosen));
  }
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Shape &shape = out[0].shape();
  std::vector<int64_t> sc = staticBroadcastStrides(in[0]->shape(), shape);
  std::vector<int64_t> dims = out[0].dims();
  size_t elementSize = dtypeSize(out[0].dtype());
  // Select through the x/y broadcast, then read the condition with its own strides.
  forEachBroadcast(shape, in[1]->shape(), in[2]->shape(), [&](int64_t i, int64_t ix, int64_t iy) {
    int64_t rest = i, ic = 0;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      ic += (rest % dims[size_t(d)]) * sc[size_t(d)];
      rest /= dims[size_t(d)];
    }
    const Tensor &chosen = in[0]->getInt(ic) ? *in[1] : *in[2];
    std::copy_n(chosen.bytes() + (in[0]->getInt(ic) ? ix : iy) * int64_t(elementSize), elementSize,
                out[0].mutableBytes() + i * int64_t(elementSize));
  });
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Shape &out = node.output(0)->type().shape;
  Expected<StridedSpace> space =
      makeStridedSpace(out, {broadcastStrides(node.input(0)->type().shape, out),
                             broadcastStrides(node.input(1)->type().shape, out),
                             broadcastStrides(node.input(2)->type().shape, out)});
  CUVIL_TRY(space.status());
  Expected<const KernelRef *> kernel = whereKernel(dtypeSize(node.output(0)->type().dtype));
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_where_params> params;
  space->setShape(params, params->shape);
  space->setStrides(params, 0, params->cond_strides);
  space->setStrides(params, 1, params->a_strides);
  space->setStrides(params, 2, params->b_strides);
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
                         KernelArg::pointer(node.input(2)), KernelArg::pointer(node.output(0)),
                         KernelArg::params(params)},
                        space->rows());
}

} // namespace

extern const OpDefinition kWhereOp = {OpSchema{"Where", 3, 3, 1, 1, {}, infer, eval}, lower};

} // namespace cuvil::ops
