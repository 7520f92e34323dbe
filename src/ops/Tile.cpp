// Tile: the input repeated `repeats[d]` times along each dim d (repeats a
// 1-D i64 input of rank entries: a constant, a shape computation's dims or a
// --value-range). The Pad kernel in wrap mode with nothing padded before:
// y[i] = x[i mod x_shape], a task per output row.
#include "OpSupport.h"
#include "cuvil/kernels/DataMovement.h"

namespace cuvil::ops {
namespace {

Expected<std::vector<Dim>> repeats(const Node &node, const Shape &x) {
  Expected<std::vector<Dim>> given = dimsInput(node, 1, "repeats");
  CUVIL_TRY(given.status());
  if (given->size() != x.size())
    return Status::error(
        fmt::format("repeats has {} entries for an input of rank {}", given->size(), x.size()));
  for (const Dim &r : *given)
    if (r.min() < 0)
      return Status::error(fmt::format("repeats [{}] must not be negative", shapeToString(*given)));
  return given;
}

// The tiled view of [r0, x0, r1, x1, ...] for the reference.
struct TiledView {
  std::vector<int64_t> shape, srcStrides;
};

TiledView tiledView(const std::vector<int64_t> &x, const std::vector<int64_t> &r) {
  TiledView view;
  std::vector<int64_t> strides = staticStrides(Shape(x.begin(), x.end()));
  for (size_t d = 0; d < x.size(); ++d) {
    view.shape.insert(view.shape.end(), {r[d], x[d]});
    view.srcStrides.insert(view.srcStrides.end(), {0, strides[d]});
  }
  return view;
}

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  Expected<std::vector<Dim>> r = repeats(ctx.node(), x);
  CUVIL_TRY(r.status());
  Shape out;
  for (size_t d = 0; d < x.size(); ++d)
    out.push_back(x[d] * (*r)[d]);
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  // A shape computation tiled (a 1-D list repeated) stays one.
  if (const std::vector<Dim> *dims = ctx.inputDims(0);
      dims && x.size() == 1 && carriesDimValues(ctx, 0)) {
    std::vector<Dim> tiled;
    for (int64_t i = 0; i < (*r)[0].constant(); ++i)
      tiled.insert(tiled.end(), dims->begin(), dims->end());
    ctx.setOutputDims(0, tiled);
  }
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  TiledView view = tiledView(in[0]->dims(), staticDims(*repeats(node, in[0]->shape())));
  copyStrided(*in[0], 0, view.srcStrides, out[0], 0,
              staticStrides(Shape(view.shape.begin(), view.shape.end())), view.shape);
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Shape &x = node.input(0)->type().shape, &y = node.output(0)->type().shape;
  if (x.size() > CUVIL_MAX_RANK)
    return Status::error(
        fmt::format("rank {} is above the {} Tile supports", x.size(), CUVIL_MAX_RANK));
  Expected<const KernelRef *> kernel = padKernel(dtypeSize(node.input(0)->type().dtype));
  CUVIL_TRY(kernel.status());
  // Shapes right-aligned in rank 6.
  ParamBlock<cuvil_pad_params> params;
  size_t lead = CUVIL_MAX_RANK - x.size();
  Dim rows = 1;
  for (size_t d = 0; d < CUVIL_MAX_RANK; ++d) {
    params.set(params->out_shape[d], d < lead ? Dim(1) : y[d - lead]);
    params.set(params->in_shape[d], d < lead ? Dim(1) : x[d - lead]);
    params->pads_begin[d] = 0;
    if (d + 1 < CUVIL_MAX_RANK && d >= lead)
      rows *= y[d - lead];
  }
  params->mode = 3; // wrap
  params->fill_bits = 0;
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.output(0)),
                         KernelArg::params(params)},
                        numElements(y).is(0) ? Dim(0) : rows);
}

} // namespace

extern const OpDefinition kTileOp = {OpSchema{"Tile", 2, 2, 1, 1, {}, infer, eval}, lower};

} // namespace cuvil::ops
