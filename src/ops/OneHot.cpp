// OneHot: indices with a new dim of `depth` inserted at `axis`, holding
// values[1] where the new coordinate equals the index and values[0]
// elsewhere. depth (a one-element input) sizes the output, so it must be
// known at compile time: a constant, a dim a shape computation carries or
// a --value/--value-range input. Negative indices count from depth (at
// every opset, as ONNX Runtime); an index outside [-depth, depth), or a
// float one that is not a whole number, gives a row of values[0].
#include "OpSupport.h"
#include "cuvil/kernels/Indexing.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {

Expected<Dim> depthOf(const Node &node) {
  const Value *depth = node.input(1);
  if (!depth->type().numElements().is(1))
    return Status::error(fmt::format("depth must have one element, is {}", depth->type().str()));
  // A float depth is truncated, as ONNX Runtime casts it.
  if (depth->isConstant() && isFloat(depth->type().dtype)) {
    double value = std::trunc(depth->constant().getDouble(0));
    if (!(value >= 1 && value <= double(int64_t(1) << 40)))
      return Status::error(fmt::format("depth is {}; it must be positive", value));
    return Dim(int64_t(value));
  }
  Expected<std::vector<Dim>> dims = dimsInput(node, 1, "depth");
  CUVIL_TRY(dims.status());
  const Dim &value = dims->front();
  if (value.max() < 1)
    return Status::error(fmt::format("depth is {}; it must be positive", value));
  return value;
}

struct OneHotGeometry {
  Dim outer, depth, inner;
  int64_t axis; // of the output
};

Expected<OneHotGeometry> geometry(const Node &node, const Shape &indices) {
  Expected<Dim> depth = depthOf(node);
  CUVIL_TRY(depth.status());
  Expected<int64_t> axis = normalizeAxis(node.getInt("axis"), int64_t(indices.size()) + 1);
  CUVIL_TRY(axis.status());
  std::span<const Dim> dims(indices);
  return OneHotGeometry{numElements(dims.first(size_t(*axis))), *depth,
                        numElements(dims.subspan(size_t(*axis))), *axis};
}

Status infer(InferContext &ctx) {
  DType indexType = ctx.inputDType(0);
  if (!(isSignedInt(indexType) || isUnsignedInt(indexType) || isFloat(indexType)) ||
      indexType == DType::BF16)
    return ctx.error("indices must be numbers (not bf16), got {}", dtypeName(indexType));
  const TensorType &values = ctx.inputType(2);
  if (values.rank() != 1 || !values.numElements().is(2))
    return ctx.error("values must be [off, on], two elements, is {}", values.str());
  Expected<OneHotGeometry> g = geometry(ctx.node(), ctx.inputShape(0));
  CUVIL_TRY(g.status());
  Shape out = ctx.inputShape(0);
  out.insert(out.begin() + g->axis, g->depth);
  ctx.setOutput(0, TensorType{values.dtype, out});
  return Status::success();
}

// Where `index` sets the one, as the kernel decides it: in [0, depth), or -1.
int64_t position(const Tensor &indices, int64_t i, int64_t depth) {
  if (isFloat(indices.dtype())) {
    double value = indices.getDouble(i);
    value = value < 0 ? value + double(depth) : value;
    bool whole = value >= 0 && value < double(depth) && std::trunc(value) == value;
    return whole ? int64_t(value) : -1;
  }
  if (indices.dtype() == DType::U64)
    return uint64_t(indices.getInt(i)) < uint64_t(depth) ? indices.getInt(i) : -1;
  int64_t value = indices.getInt(i);
  value = value < 0 ? value + depth : value;
  return value >= 0 && value < depth ? value : -1;
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &indices = *in[0], &values = *in[2];
  OneHotGeometry g = *geometry(node, indices.shape());
  int64_t outer = g.outer.constant(), depth = g.depth.constant(), inner = g.inner.constant();
  int64_t size = int64_t(dtypeSize(values.dtype()));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t hot = position(indices, o * inner + i, depth);
      for (int64_t d = 0; d < depth; ++d)
        std::copy_n(values.bytes() + (d == hot ? size : 0), size,
                    out[0].mutableBytes() + ((o * depth + d) * inner + i) * size);
    }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *indices = node.input(0), *values = node.input(2);
  OneHotGeometry g = *geometry(node, indices->type().shape);
  ParamBlock<cuvil_onehot_params> params;
  params.set(params->depth, g.depth);
  params.set(params->inner, g.inner);
  Expected<const KernelRef *> kernel =
      oneHotKernel(indices->type().dtype, dtypeSize(values->type().dtype));
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(
      **kernel,
      {KernelArg::pointer(indices), KernelArg::pointer(values), KernelArg::pointer(node.output(0)),
       KernelArg::error({"depth is {}; it must be positive"}), KernelArg::params(params)},
      g.outer);
}

} // namespace

extern const OpDefinition kOneHotOp = {
    OpSchema{"OneHot", 3, 3, 1, 1, {{"axis", AttrKind::Int, Attribute(int64_t(-1))}}, infer, eval},
    lower};

} // namespace cuvil::ops
