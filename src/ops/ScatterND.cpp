// ScatterND: out = data, then for each index tuple t of indices (its last
// dim, known at compile time, is the tuple length k) the slice of data's
// dims from k on at position t is replaced by updates[t] (or combined by
// `reduction`: add, mul, max, min). Tuples apply in order, so the last of
// duplicates wins, as in ONNX Runtime; negative indices count from the
// end, and one outside [-n, n) is refused.
#include "NDCommon.h"
#include "ScatterCommon.h"

namespace cuvil::ops {
namespace {

// Slice elements per task: enough to pay for reading every tuple again.
constexpr int64_t kSliceBlock = 1024;

Status infer(InferContext &ctx) {
  CUVIL_TRY(scatterReduction(ctx.node()).status());
  const Shape &data = ctx.inputShape(0), &indices = ctx.inputShape(1);
  Expected<TupleGeometry> g = tupleGeometry(data, ctx.inputType(1), 0);
  CUVIL_TRY(g.status());
  Shape updates(indices.begin(), indices.end() - 1);
  updates.insert(updates.end(), data.begin() + g->depth, data.end());
  if (ctx.inputShape(2) != updates)
    return ctx.error("updates have shape {}; indices {} and data {} need {}",
                     ctx.inputType(2).str(), ctx.inputType(1).str(), ctx.inputType(0).str(),
                     TensorType{ctx.inputDType(0), updates}.str());
  if (ctx.inputDType(2) != ctx.inputDType(0))
    return ctx.error("updates are {}, data {}: they must be alike", dtypeName(ctx.inputDType(2)),
                     dtypeName(ctx.inputDType(0)));
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &data = *in[0], &indices = *in[1], &updates = *in[2];
  TupleGeometry g = *tupleGeometry(data.shape(), indices.type(), 0);
  cuvil_scatter_reduction reduction = *scatterReduction(node);
  int64_t slice = g.slice.constant();
  out[0] = data;
  for (int64_t t = 0, n = g.tuples.constant(); t < n; ++t) {
    Expected<int64_t> offset = tupleOffset(g, indices, t);
    CUVIL_TRY(offset.status());
    for (int64_t s = 0; s < slice; ++s)
      combineElement(reduction, out[0], *offset + s, updates, t * slice + s);
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *data = node.input(0), *indices = node.input(1);
  TupleGeometry g = *tupleGeometry(data->type().shape, indices->type(), 0);
  ParamBlock<cuvil_scatter_nd_params> params;
  setTupleGeometry(params, g);
  params->block = kSliceBlock;
  params->reduction = *scatterReduction(node);
  Expected<const KernelRef *> kernel = scatterNDKernel(data->type().dtype);
  CUVIL_TRY(kernel.status());
  CUVIL_TRY(copyDataToOutput(node, ctx));
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(node.output(0)), KernelArg::pointer(indices),
                         KernelArg::pointer(node.input(2)), KernelArg::error(tupleErrorMessages(g)),
                         KernelArg::params(params)},
                        ceilDiv(g.slice, kSliceBlock));
}

} // namespace

extern const OpDefinition kScatterNDOp = {
    OpSchema{"ScatterND",
             3,
             3,
             1,
             1,
             {{"reduction", AttrKind::String, Attribute(std::string("none"))}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
