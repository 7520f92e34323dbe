// LayerNormalization: normalises over the dims from `axis` (default -1):
//   y = (x - mean) / sqrt(var + epsilon) * Scale + B
// Scale and B hold one value per normalised element (or one in total).
// Optional results Mean and InvStdDev have x's shape with those dims set to 1.
#include "OpSupport.h"

#include <cmath>

namespace cuvil::ops {
namespace {

struct Rows {
  Dim rows, cols;
};

Expected<Rows> rowsOf(const Node &node, const Shape &x) {
  Expected<int64_t> axis = normalizeAxis(node.getInt("axis"), int64_t(x.size()));
  CUVIL_TRY(axis.status());
  std::span<const Dim> dims(x);
  return Rows{numElements(dims.first(size_t(*axis))), numElements(dims.subspan(size_t(*axis)))};
}

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  Expected<Rows> r = rowsOf(ctx.node(), x);
  CUVIL_TRY(r.status());
  for (size_t i = 1; i < 3; ++i) {
    if (!ctx.hasInput(i))
      continue;
    Dim count = ctx.inputType(i).numElements();
    if (!(count == r->cols) && !count.is(1))
      return ctx.error("{} has {} elements; expected {} or 1", i == 1 ? "Scale" : "B", count,
                       r->cols);
  }
  ctx.setOutput(0, ctx.inputType(0));
  Shape reduced = x;
  int64_t axis = *normalizeAxis(ctx.node().getInt("axis"), int64_t(x.size()));
  for (size_t d = size_t(axis); d < x.size(); ++d)
    reduced[d] = 1;
  for (size_t i = 1; i < ctx.node().numOutputs(); ++i)
    ctx.setOutput(i, TensorType{DType::F32, reduced});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0], &scale = *in[1];
  const Tensor *bias = in.size() > 2 ? in[2] : nullptr;
  Rows r = *rowsOf(node, x.shape());
  const int64_t rows = r.rows.constant(), cols = r.cols.constant();
  double epsilon = node.getFloat("epsilon");
  for (int64_t row = 0; row < rows; ++row) {
    double sum = 0, squares = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += x.getDouble(row * cols + c);
    double mean = sum / double(cols);
    for (int64_t c = 0; c < cols; ++c)
      squares += std::pow(x.getDouble(row * cols + c) - mean, 2);
    double invStd = 1.0 / std::sqrt(squares / double(cols) + epsilon);
    for (int64_t c = 0; c < cols; ++c) {
      double value = (x.getDouble(row * cols + c) - mean) * invStd *
                     scale.getDouble(scale.numElements() == 1 ? 0 : c);
      if (bias)
        value += bias->getDouble(bias->numElements() == 1 ? 0 : c);
      out[0].setDouble(row * cols + c, value);
    }
    if (out.size() > 1)
      out[1].setDouble(row, mean);
    if (out.size() > 2)
      out[2].setDouble(row, invStd);
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  if (x->type().dtype != DType::F32)
    return Status::error("only f32 is supported");
  Rows r = *rowsOf(node, x->type().shape);
  auto stride = [&](size_t i) -> int64_t {
    return node.hasInput(i) && !node.input(i)->type().numElements().is(1) ? 1 : 0;
  };
  return ctx.callKernel(
      kLayerNormKernel,
      {KernelArg::pointer(x), KernelArg::pointer(node.input(1)),
       KernelArg::optionalPointer(node.input(2)), KernelArg::pointer(node.output(0)),
       KernelArg::optionalPointer(node.numOutputs() > 1 ? node.output(1) : nullptr),
       KernelArg::optionalPointer(node.numOutputs() > 2 ? node.output(2) : nullptr),
       KernelArg::constant(r.cols), KernelArg::constantF32(node.getFloat("epsilon")),
       KernelArg::constant(stride(1)), KernelArg::constant(stride(2))},
      r.rows);
}

} // namespace

extern const OpDefinition kLayerNormalizationOp = {
    OpSchema{"LayerNormalization",
             2,
             3,
             1,
             3,
             {{"axis", AttrKind::Int, int64_t(-1)},
              {"epsilon", AttrKind::Float, 1e-5f},
              {"stash_type", AttrKind::Int, int64_t(1)}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
