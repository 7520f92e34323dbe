// NonZero: the coordinates of the input's nonzero elements, i64[rank, count]
// in row-major order (a scalar counts as rank 1). The count comes from the
// data: a symbol in [0, elements] the kernel writes at run time (or a
// number, when the input is a constant and the node folds).
#include "OpSupport.h"
#include "cuvil/kernels/Select.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

int64_t coordinateRank(const Shape &x) { return std::max<int64_t>(1, int64_t(x.size())); }

int64_t countNonZero(const Tensor &x) {
  int64_t count = 0;
  for (int64_t i = 0; i < x.numElements(); ++i)
    count += x.getDouble(i) != 0.0 ? 1 : 0;
  return count;
}

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  if (x.size() > CUVIL_MAX_RANK)
    return ctx.error("rank {} is above the {} NonZero supports", x.size(), CUVIL_MAX_RANK);
  const Tensor *data = ctx.constantInput(0);
  Dim count = data ? Dim(countNonZero(*data)) : ctx.dataSymbol("count", numElements(x).max());
  ctx.setOutput(0, TensorType{DType::I64, {coordinateRank(x), count}});
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  std::vector<int64_t> dims = x.dims();
  int64_t rank = coordinateRank(x.shape()), count = countNonZero(x), k = 0;
  std::vector<int64_t> coords(size_t(rank * count));
  for (int64_t i = 0; i < x.numElements(); ++i) {
    if (x.getDouble(i) == 0.0)
      continue;
    for (int64_t d = int64_t(dims.size()) - 1, rest = i; d >= 0; --d) {
      coords[size_t(d * count + k)] = rest % dims[size_t(d)];
      rest /= dims[size_t(d)];
    }
    ++k; // a scalar's one coordinate stays 0
  }
  out[0] = Tensor::fromInt64s(coords, {rank, count});
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Shape &x = node.input(0)->type().shape;
  std::optional<SymbolId> count = node.output(0)->type().shape[1].asSymbol();
  if (!count)
    return Status::error("internal error: a NonZero that is not folded has a count from data");
  Expected<const KernelRef *> kernel = nonZeroKernel(node.input(0)->type().dtype);
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_nonzero_params> params;
  params->rank = coordinateRank(x);
  params.set(params->elements, numElements(x));
  params->shape[0] = 1;
  for (size_t d = 0; d < x.size(); ++d)
    params.set(params->shape[d], x[d]);
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.output(0)),
                         KernelArg::symbol(*count), KernelArg::params(params)},
                        1);
}

} // namespace

extern const OpDefinition kNonZeroOp = {OpSchema{"NonZero", 1, 1, 1, 1, {}, infer, eval}, lower};

} // namespace cuvil::ops
