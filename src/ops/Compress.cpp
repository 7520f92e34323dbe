// Compress: the slices of the input along `axis` whose condition entry is
// true, in order (without an axis, the flattened input's elements). A
// condition shorter than the axis selects nothing past its end. The extent
// comes from the data: a symbol in [0, min(condition length, axis length)]
// the kernel writes at run time (a number when both inputs are constants
// and the node folds).
#include "OpSupport.h"
#include "cuvil/kernels/Select.h"

#include <algorithm>
#include <cstring>

namespace cuvil::ops {
namespace {

// The selected entries of a constant condition within the axis.
int64_t selectedCount(const Tensor &cond, int64_t axisLength) {
  int64_t count = 0;
  for (int64_t a = 0; a < std::min(cond.numElements(), axisLength); ++a)
    count += cond.getInt(a) != 0 ? 1 : 0;
  return count;
}

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0), &cond = ctx.inputShape(1);
  if (ctx.inputDType(1) != DType::Bool || cond.size() != 1)
    return ctx.error("the condition must be a 1-D bool tensor, got {}[{}]",
                     dtypeName(ctx.inputDType(1)), shapeToString(cond));
  Expected<AxisSplit> g = splitAtOptionalAxis(ctx.node(), x);
  CUVIL_TRY(g.status());
  const Tensor *condition = ctx.constantInput(1);
  Dim count;
  if (condition && g->axisDim.isConstant()) {
    int64_t selected = selectedCount(*condition, g->axisDim.constant());
    count = ctx.constantInput(0) ? Dim(selected) : ctx.dataSymbol("count", selected);
  } else {
    count = ctx.dataSymbol("count", std::min(cond[0].max(), g->axisDim.max()));
  }
  Shape out = {count};
  if (g->axis) {
    out = x;
    out[size_t(*g->axis)] = count;
  }
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0], &cond = *in[1];
  Expected<AxisSplit> g = splitAtOptionalAxis(node, x.shape());
  CUVIL_TRY(g.status());
  int64_t outer = g->outer.constant(), axisLength = g->axisDim.constant();
  int64_t slice = g->inner.constant() * int64_t(dtypeSize(x.dtype()));
  int64_t n = std::min(cond.numElements(), axisLength);
  uint8_t *to = out[0].mutableBytes();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t a = 0; a < n; ++a)
      if (cond.getInt(a) != 0) {
        std::memcpy(to, x.bytes() + (o * axisLength + a) * slice, size_t(slice));
        to += slice;
      }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0), *cond = node.input(1), *y = node.output(0);
  Expected<AxisSplit> g = splitAtOptionalAxis(node, x->type().shape);
  CUVIL_TRY(g.status());
  const Shape &out = y->type().shape;
  std::optional<SymbolId> count = out[g->axis ? size_t(*g->axis) : 0].asSymbol();
  if (!count)
    return Status::error("internal error: a Compress that is not folded has a count from data");
  Expected<const KernelRef *> kernel = compressKernel(dtypeSize(x->type().dtype));
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_compress_params> params;
  params.set(params->outer, g->outer);
  params.set(params->axis_len, g->axisDim);
  params.set(params->inner, g->inner);
  params.set(params->cond_len, cond->type().shape[0]);
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(x), KernelArg::pointer(cond), KernelArg::pointer(y),
                         KernelArg::symbol(*count), KernelArg::params(params)},
                        1);
}

} // namespace

extern const OpDefinition kCompressOp = {
    OpSchema{"Compress", 2, 2, 1, 1, {{"axis", AttrKind::Int}}, infer, eval}, lower};

} // namespace cuvil::ops
