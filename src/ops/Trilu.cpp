// Trilu: the upper (upper = 1, the default: j - i >= k) or lower (j - i <=
// k) triangle of each matrix in the last two dims, zeros elsewhere; k is an
// optional i64 scalar input (0 when omitted), constant or run-time data.
#include "OpSupport.h"
#include "cuvil/kernels/DataMovement.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &shape = ctx.inputShape(0);
  if (shape.size() < 2)
    return ctx.error("expects a tensor of rank 2 or more, got rank {}", shape.size());
  if (ctx.hasInput(1)) {
    if (ctx.inputDType(1) != DType::I64 || ctx.inputType(1).numElements() != Dim(1))
      return ctx.error("k must be one i64, got {}", ctx.inputType(1).str());
  }
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  int64_t k = in.size() > 1 && in[1] ? in[1]->getInt(0) : 0;
  bool upper = node.getInt("upper", 1) != 0;
  std::vector<int64_t> dims = x.dims();
  int64_t rows = dims[dims.size() - 2], cols = dims.back();
  size_t size = dtypeSize(x.dtype());
  std::fill_n(out[0].mutableBytes(), out[0].byteSize(), uint8_t(0));
  for (int64_t e = 0, n = x.numElements(); e < n; ++e) {
    int64_t j = e % cols, i = (e / cols) % rows;
    if (upper ? j - i >= k : j - i <= k)
      std::copy_n(x.bytes() + e * int64_t(size), size, out[0].mutableBytes() + e * int64_t(size));
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  const Shape &shape = x->type().shape;
  Expected<const KernelRef *> kernel = triluKernel(dtypeSize(x->type().dtype));
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_trilu_params> params;
  params.set(params->rows, shape[shape.size() - 2]);
  params.set(params->cols, shape.back());
  params->upper = node.getInt("upper", 1) != 0;
  Dim rows = numElements(std::span<const Dim>(shape).first(shape.size() - 1));
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(x), KernelArg::optionalPointer(node.input(1)),
                         KernelArg::pointer(node.output(0)), KernelArg::params(params)},
                        rows);
}

} // namespace

extern const OpDefinition kTriluOp = {
    OpSchema{"Trilu", 1, 2, 1, 1, {{"upper", AttrKind::Int}}, infer, eval}, lower};

} // namespace cuvil::ops
