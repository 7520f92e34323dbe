// MaxUnpool: the inverse of MaxPool with Indices: a zero tensor with each
// x[i] written at the flat index I[i] (MaxPool's Indices), later elements
// winning. The output's shape is the given `output_shape` input (known at
// compile time), else MaxPool's input shape reconstructed from
// kernel_shape, strides and pads: (in - 1) * stride + kernel - pads. An
// index outside the output is refused at run time, as ONNX Runtime does.
// f32, as ONNX Runtime takes.
#include "OpSupport.h"
#include "cuvil/kernels/Pool.h"

namespace cuvil::ops {
namespace {

Expected<Shape> outputShape(const Node &node, const Shape &x) {
  size_t spatial = x.size() - 2;
  std::vector<int64_t> kernel = node.getInts("kernel_shape");
  std::vector<int64_t> strides = node.getInts("strides", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads = node.getInts("pads", std::vector<int64_t>(2 * spatial, 0));
  if (kernel.size() != spatial || strides.size() != spatial || pads.size() != 2 * spatial)
    return Status::error(fmt::format("kernel_shape, strides or pads do not match the {} spatial "
                                     "dimensions",
                                     spatial));
  Shape inferred = {x[0], x[1]};
  for (size_t d = 0; d < spatial; ++d) {
    if (kernel[d] < 1 || strides[d] < 1 || pads[d] < 0 || pads[d + spatial] < 0)
      return Status::error("kernel sizes and strides must be positive, pads not negative");
    Dim extent = (x[d + 2] - 1) * strides[d] + kernel[d] - pads[d] - pads[d + spatial];
    if (extent.max() < 1)
      return Status::error(fmt::format("spatial dim {} would be {}", d, extent.str()));
    inferred.push_back(extent);
  }
  if (!node.hasInput(2))
    return inferred;
  Expected<std::vector<Dim>> given = dimsInput(node, 2, "output_shape");
  CUVIL_TRY(given.status());
  if (given->size() != x.size())
    return Status::error(
        fmt::format("output_shape has {} dims; the input has rank {}", given->size(), x.size()));
  Dim givenElements = numElements(*given), inferredElements = numElements(inferred);
  if (givenElements.max() < inferredElements.min())
    return Status::error(fmt::format("output_shape [{}] is smaller than [{}], which the window "
                                     "needs",
                                     shapeToString(*given), shapeToString(inferred)));
  return Shape(given->begin(), given->end());
}

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  if (ctx.inputDType(0) != DType::F32)
    return ctx.error("element type {} is not supported (f32 is)", dtypeName(ctx.inputDType(0)));
  if (x.size() < 3)
    return ctx.error("input must be N-C-spatial (rank 3 or more), has rank {}", x.size());
  if (ctx.inputDType(1) != DType::I64 || ctx.inputShape(1) != x)
    return ctx.error("I must be i64 of the input's shape [{}], is {}[{}]", shapeToString(x),
                     dtypeName(ctx.inputDType(1)), shapeToString(ctx.inputShape(1)));
  Expected<Shape> out = outputShape(ctx.node(), x);
  CUVIL_TRY(out.status());
  ctx.setOutput(0, TensorType{DType::F32, *out});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0], &indices = *in[1];
  int64_t outputs = out[0].numElements();
  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t at = indices.getInt(i);
    if (at < 0 || at >= outputs)
      return Status::error(fmt::format("index {} is outside the {} output elements", at, outputs));
    out[0].setDouble(at, x.getDouble(i));
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  Dim outputs = node.output(0)->type().numElements();
  return ctx.callKernel(
      kMaxUnpoolKernel,
      {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(1)),
       KernelArg::pointer(node.output(0)),
       KernelArg::error(
           {fmt::format("index {{}} is outside the {} output elements", outputs.str())}),
       KernelArg::constant(node.input(0)->type().numElements()), KernelArg::constant(outputs)},
      1);
}

} // namespace

extern const OpDefinition kMaxUnpoolOp = {
    OpSchema{"MaxUnpool",
             2,
             3,
             1,
             1,
             {{"kernel_shape", AttrKind::Ints, std::nullopt, /*required=*/true},
              {"pads", AttrKind::Ints},
              {"strides", AttrKind::Ints}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
