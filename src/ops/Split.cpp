// Split: cuts the input along `axis` into the sizes of the constant `split`
// input, or into equal parts (num_outputs, opset 18, or one per result).
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Expected<std::vector<Dim>> splitSizes(const Node &node, const Dim &dim) {
  size_t parts = node.numOutputs();
  if (node.hasInput(1)) {
    Expected<std::vector<int64_t>> given = constantInts(node, 1, "the split sizes");
    CUVIL_TRY(given.status());
    const std::vector<int64_t> &sizes = *given;
    int64_t total = 0;
    for (int64_t size : sizes)
      total += size;
    if (sizes.size() != parts || !(Dim(total) == dim))
      return Status::error(
          fmt::format("split sizes [{}] do not cut a dimension of {} into {} parts",
                      fmt::join(sizes, ","), dim, parts));
    return std::vector<Dim>(sizes.begin(), sizes.end());
  }
  // Equal parts, the last one smaller when the dimension does not divide.
  Dim chunk = ceilDiv(dim, int64_t(parts));
  std::vector<Dim> sizes;
  for (size_t i = 0; i < parts; ++i)
    sizes.push_back(maxDim(0, minDim(chunk, dim - chunk * int64_t(i))));
  return sizes;
}

Status infer(InferContext &ctx) {
  const Shape &in = ctx.inputShape(0);
  Expected<int64_t> axis = normalizeAxis(ctx.node().getInt("axis", 0), int64_t(in.size()));
  CUVIL_TRY(axis.status());
  if (ctx.node().hasAttr("num_outputs") &&
      ctx.node().getInt("num_outputs", 0) != int64_t(ctx.node().numOutputs()))
    return ctx.error("num_outputs is {} but the node has {} results",
                     ctx.node().getInt("num_outputs", 0), ctx.node().numOutputs());
  Expected<std::vector<Dim>> sizes = splitSizes(ctx.node(), in[size_t(*axis)]);
  CUVIL_TRY(sizes.status());
  for (size_t i = 0; i < sizes->size(); ++i) {
    Shape out = in;
    out[size_t(*axis)] = (*sizes)[i];
    ctx.setOutput(i, TensorType{ctx.inputDType(0), out});
  }
  return Status::success();
}

template <typename Copy> void forEachPart(const Node &node, Copy copy) {
  const Shape &in = node.input(0)->type().shape;
  int64_t axis = *normalizeAxis(node.getInt("axis", 0), int64_t(in.size()));
  Dim stride = contiguousStrides(in)[size_t(axis)];
  std::vector<Dim> sizes = *splitSizes(node, in[size_t(axis)]);
  Dim position = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    copy(i, position * stride);
    position += sizes[i];
  }
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  std::vector<int64_t> inStrides = staticStrides(in[0]->shape());
  forEachPart(node, [&](size_t i, const Dim &offset) {
    copyStrided(*in[0], offset.constant(), inStrides, out[i], 0, staticStrides(out[i].shape()),
                out[i].dims());
  });
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *input = node.input(0);
  std::vector<Dim> inStrides = contiguousStrides(input->type().shape);
  int64_t elementSize = int64_t(dtypeSize(input->type().dtype));
  Status status;
  forEachPart(node, [&](size_t i, const Dim &offset) {
    const Shape &shape = node.output(i)->type().shape;
    if (status.ok())
      status = emitStridedCopy(ctx, input, offset * elementSize, inStrides, node.output(i), 0,
                               contiguousStrides(shape), shape);
  });
  return status;
}

} // namespace

extern const OpDefinition kSplitOp = {
    OpSchema{"Split",
             1,
             2,
             1,
             1 << 20,
             {{"axis", AttrKind::Int}, {"num_outputs", AttrKind::Int}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
