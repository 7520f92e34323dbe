// GatherND: the slices of data that the index tuples of indices name (the
// last dim of indices, known at compile time, is the tuple length k); the
// first batch_dims dims of data and indices pair batches, and a tuple
// indexes data's dims [batch_dims, batch_dims + k) in its batch. The
// output is indices' dims but the last, then data's from batch_dims + k
// on. Negative indices count from the end; one outside [-n, n) is refused.
#include "NDCommon.h"
#include "cuvil/kernels/Indexing.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

Expected<TupleGeometry> geometry(const Node &node, const Shape &data, const TensorType &indices) {
  int64_t batchDims = node.getInt("batch_dims");
  int64_t rank = int64_t(std::min(data.size(), indices.shape.size()));
  if (batchDims < 0 || batchDims >= rank)
    return Status::error(fmt::format("batch_dims {} is outside [0, {}): data has rank {}, "
                                     "indices {}",
                                     batchDims, rank, data.size(), indices.shape.size()));
  for (size_t d = 0; d < size_t(batchDims); ++d)
    if (data[d] != indices.shape[d])
      return Status::error(fmt::format("batch dim {} of indices ({}) differs from data's ({})", d,
                                       indices.shape[d], data[d]));
  return tupleGeometry(data, indices, size_t(batchDims));
}

Status infer(InferContext &ctx) {
  const Shape &data = ctx.inputShape(0), &indices = ctx.inputShape(1);
  Expected<TupleGeometry> g = geometry(ctx.node(), data, ctx.inputType(1));
  CUVIL_TRY(g.status());
  Shape out(indices.begin(), indices.end() - 1);
  out.insert(out.end(), data.begin() + int64_t(g->first) + g->depth, data.end());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &data = *in[0], &indices = *in[1];
  TupleGeometry g = *geometry(node, data.shape(), indices.type());
  int64_t slice = g.slice.constant(), tuples = g.tuples.constant();
  int64_t rows =
      numElements(std::span<const Dim>(indices.shape()).first(indices.shape().size() - 1))
          .constant();
  int64_t batchSize = numElements(std::span<const Dim>(data.shape()).subspan(g.first)).constant();
  int64_t size = int64_t(dtypeSize(data.dtype()));
  for (int64_t row = 0; row < rows; ++row) {
    Expected<int64_t> offset = tupleOffset(g, indices, row);
    CUVIL_TRY(offset.status());
    std::copy_n(data.bytes() + (row / tuples * batchSize + *offset) * size, slice * size,
                out[0].mutableBytes() + row * slice * size);
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *data = node.input(0), *indices = node.input(1);
  const Shape &dataShape = data->type().shape;
  TupleGeometry g = *geometry(node, dataShape, indices->type());
  ParamBlock<cuvil_gather_nd_params> params;
  setTupleGeometry(params, g);
  params.set(params->batch_stride, numElements(std::span<const Dim>(dataShape).subspan(g.first)));
  Expected<const KernelRef *> kernel = gatherNDKernel(dtypeSize(data->type().dtype));
  CUVIL_TRY(kernel.status());
  const Shape &indexShape = indices->type().shape;
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(data), KernelArg::pointer(indices),
                         KernelArg::pointer(node.output(0)),
                         KernelArg::error(tupleErrorMessages(g)), KernelArg::params(params)},
                        numElements(std::span<const Dim>(indexShape).first(indexShape.size() - 1)));
}

} // namespace

extern const OpDefinition kGatherNDOp = {
    OpSchema{"GatherND",
             2,
             2,
             1,
             1,
             {{"batch_dims", AttrKind::Int, Attribute(int64_t(0))}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
