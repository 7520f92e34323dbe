// ReverseSequence: along `time_axis`, the first sequence_lens[b] steps of
// each batch entry b (along `batch_axis`; the two axes are 0 and 1 in
// either order) reversed, the rest copied. A length outside [0, steps] is
// refused (ONNX Runtime fails on it), by the run when it is data.
#include "OpSupport.h"
#include "cuvil/kernels/DataMovement.h"

#include <cstring>

namespace cuvil::ops {
namespace {

// x as [batch, time, inner] with each axis's element stride.
struct Steps {
  Dim batch, time, inner, batchStride, timeStride;
};

Expected<Steps> steps(const Node &node, const Shape &x) {
  int64_t batchAxis = node.getInt("batch_axis"), timeAxis = node.getInt("time_axis");
  if (!((batchAxis == 0 && timeAxis == 1) || (batchAxis == 1 && timeAxis == 0)))
    return Status::error(
        fmt::format("batch_axis {} and time_axis {} must be 0 and 1", batchAxis, timeAxis));
  if (x.size() < 2)
    return Status::error(fmt::format("input must have rank 2 or more, has {}", x.size()));
  Dim inner = numElements(std::span(x).subspan(2));
  Dim batch = x[size_t(batchAxis)], time = x[size_t(timeAxis)];
  return batchAxis == 0 ? Steps{batch, time, inner, time * inner, inner}
                        : Steps{batch, time, inner, inner, batch * inner};
}

Status infer(InferContext &ctx) {
  Expected<Steps> s = steps(ctx.node(), ctx.inputShape(0));
  CUVIL_TRY(s.status());
  const Shape &lens = ctx.inputShape(1);
  if (ctx.inputDType(1) != DType::I64)
    return ctx.error("sequence_lens must be i64, is {}", dtypeName(ctx.inputDType(1)));
  if (lens.size() != 1 || !(lens[0] == s->batch))
    return ctx.error("sequence_lens is [{}]; it must be [{}], one length per batch entry",
                     shapeToString(lens), s->batch.str());
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0], &lens = *in[1];
  Steps s = *steps(node, x.shape());
  int64_t batch = s.batch.constant(), time = s.time.constant(), inner = s.inner.constant();
  size_t bytes = dtypeSize(x.dtype()) * size_t(inner);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t length = lens.getInt(b);
    if (length < 0 || length > time)
      return Status::error(fmt::format("sequence length {} is outside [0, {}]", length, time));
    for (int64_t t = 0; t < time; ++t) {
      int64_t from = t < length ? length - 1 - t : t;
      int64_t dst = b * s.batchStride.constant() + t * s.timeStride.constant();
      int64_t src = b * s.batchStride.constant() + from * s.timeStride.constant();
      std::memcpy(out[0].mutableBytes() + size_t(dst) * dtypeSize(x.dtype()),
                  x.bytes() + size_t(src) * dtypeSize(x.dtype()), bytes);
    }
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  Steps s = *steps(node, x->type().shape);
  Expected<const KernelRef *> kernel = reverseSequenceKernel(dtypeSize(x->type().dtype));
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_reverse_sequence_params> params;
  params.set(params->time, s.time);
  params.set(params->inner, s.inner);
  params.set(params->batch_stride, s.batchStride);
  params.set(params->time_stride, s.timeStride);
  return ctx.callKernel(
      **kernel,
      {KernelArg::pointer(x), KernelArg::pointer(node.input(1)), KernelArg::pointer(node.output(0)),
       KernelArg::error({fmt::format("sequence length {{}} is outside [0, {}]", s.time.str())}),
       KernelArg::params(params)},
      s.batch * s.time);
}

} // namespace

extern const OpDefinition kReverseSequenceOp = {
    OpSchema{"ReverseSequence",
             2,
             2,
             1,
             1,
             {{"batch_axis", AttrKind::Int, Attribute(int64_t(1))},
              {"time_axis", AttrKind::Int, Attribute(int64_t(0))}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
