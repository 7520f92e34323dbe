// TensorScatter (opset 24; the KV-cache update of LLM decoders): the past
// cache [B, ..., max_seq, ...] with the update [B, ..., seq, ...] (the same
// dims but along `axis`, seq <= max_seq) written from position
// write_indices[b] (0 without them) of each batch's sequence:
//   present[prefix, write_indices[b] + s, ...] = update[prefix, s, ...]
// with the position modulo max_seq in circular mode; in linear mode a
// position past the cache, and in both a negative write index, are refused
// at run time (as ONNX Runtime; the spec's modulo would wrap a negative
// one). Any element type.
#include "OpSupport.h"
#include "ScatterCommon.h"
#include "cuvil/kernels/Indexing.h"

#include <algorithm>
#include <cstring>

namespace cuvil::ops {
namespace {

struct ScatterGeometry {
  int64_t axis = 0;
  bool circular = false;
};

Expected<ScatterGeometry> geometry(const InferContext &ctx) {
  const Shape &past = ctx.inputShape(0), &update = ctx.inputShape(1);
  const std::string mode = ctx.node().getString("mode", "linear");
  if (mode != "linear" && mode != "circular")
    return ctx.error("mode '{}' is not linear or circular", mode);
  Expected<int64_t> axis = normalizeAxis(ctx.node().getInt("axis", -2), int64_t(past.size()));
  CUVIL_TRY(axis.status());
  if (*axis == 0)
    return ctx.error("axis 0 is the batch, not a sequence axis");
  if (ctx.inputDType(1) != ctx.inputDType(0))
    return ctx.error("update is {}, past_cache {}: they must be alike",
                     dtypeName(ctx.inputDType(1)), dtypeName(ctx.inputDType(0)));
  Shape expected = past;
  expected[size_t(*axis)] = update.size() == past.size() ? update[size_t(*axis)] : Dim(0);
  if (update != expected)
    return ctx.error("update [{}] must be past_cache [{}] but along axis {}", shapeToString(update),
                     shapeToString(past), *axis);
  const Dim &seq = update[size_t(*axis)], &maxSeq = past[size_t(*axis)];
  if (seq.isConstant() && maxSeq.isConstant() && seq.constant() > maxSeq.constant())
    return ctx.error("update's {} positions do not fit the cache's {}", seq.constant(),
                     maxSeq.constant());
  if (ctx.hasInput(2) &&
      (ctx.inputDType(2) != DType::I64 || !(ctx.inputShape(2) == Shape{past[0]})))
    return ctx.error("write_indices must be i64 [{}], are {}", past[0].str(),
                     ctx.inputType(2).str());
  return ScatterGeometry{*axis, mode == "circular"};
}

Status infer(InferContext &ctx) {
  CUVIL_TRY(geometry(ctx).status());
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

// The cache as [prefixes, max_seq, inner] and the update likewise.
struct Extents {
  Dim prefixes, perBatch, inner;
};

Extents extents(const Shape &past, int64_t axis) {
  const std::span<const Dim> dims(past);
  return {numElements(dims.first(size_t(axis))), numElements(dims.subspan(1, size_t(axis) - 1)),
          numElements(dims.subspan(size_t(axis) + 1))};
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const ScatterGeometry g = *geometry(InferContext(node));
  const Tensor &past = *in[0], &update = *in[1];
  const Tensor *writeIndices = in.size() > 2 ? in[2] : nullptr;
  const Extents e = extents(past.shape(), g.axis);
  const int64_t maxSeq = past.dim(size_t(g.axis)), seq = update.dim(size_t(g.axis));
  const int64_t rowBytes = e.inner.constant() * int64_t(dtypeSize(past.dtype()));
  auto outside = [&](int64_t position) {
    return Status::error(
        fmt::format("write position {} is outside the cache's {} positions", position, maxSeq));
  };
  out[0] = past;
  uint8_t *present = out[0].mutableBytes();
  for (int64_t prefix = 0; prefix < e.prefixes.constant(); ++prefix) {
    const int64_t first =
        writeIndices ? writeIndices->getInt(prefix / std::max<int64_t>(e.perBatch.constant(), 1))
                     : 0;
    if (first < 0)
      return outside(first);
    for (int64_t s = 0; s < seq; ++s) {
      // first + s is only formed below max_seq (no overflow).
      const int64_t position = g.circular        ? (first % maxSeq + s) % maxSeq
                               : first >= maxSeq ? first
                                                 : first + s;
      if (position >= maxSeq)
        return outside(position);
      std::memcpy(present + (prefix * maxSeq + position) * rowBytes,
                  update.bytes() + (prefix * seq + s) * rowBytes, size_t(rowBytes));
    }
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const ScatterGeometry g = *geometry(InferContext(node));
  const Shape &past = node.input(0)->type().shape;
  const Extents e = extents(past, g.axis);
  ParamBlock<cuvil_tensor_scatter_params> params;
  params.set(params->per_batch, e.perBatch);
  params.set(params->max_seq, past[size_t(g.axis)]);
  params.set(params->seq, node.input(1)->type().shape[size_t(g.axis)]);
  params.set(params->inner, e.inner);
  params->circular = g.circular;
  Expected<const KernelRef *> kernel = tensorScatterKernel(dtypeSize(node.input(0)->type().dtype));
  CUVIL_TRY(kernel.status());
  CUVIL_TRY(copyDataToOutput(node, ctx));
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(node.output(0)), KernelArg::pointer(node.input(1)),
                         KernelArg::optionalPointer(node.input(2)),
                         KernelArg::error({fmt::format("write position {{}} is outside the "
                                                       "cache's {} positions",
                                                       past[size_t(g.axis)].str())}),
                         KernelArg::params(params)},
                        e.prefixes);
}

} // namespace

extern const OpDefinition kTensorScatterOp = {
    OpSchema{"TensorScatter",
             2,
             3,
             1,
             1,
             {{"mode", AttrKind::String, Attribute(std::string("linear"))},
              {"axis", AttrKind::Int, Attribute(int64_t(-2))}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
