// Transpose: y[i_perm[0], ..] = x[i_0, ..]; perm defaults to reversing the
// dims. Lowered to a strided copy walking the output in order.
#include "OpSupport.h"

#include <numeric>

namespace cuvil::ops {
namespace {

Expected<std::vector<int64_t>> permutation(const Node &node, int64_t rank) {
  std::vector<int64_t> reversed(static_cast<size_t>(rank));
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  return permutationAttr(node, "perm", size_t(rank), std::move(reversed));
}

Status infer(InferContext &ctx) {
  const Shape &in = ctx.inputShape(0);
  Expected<std::vector<int64_t>> perm = permutation(ctx.node(), int64_t(in.size()));
  CUVIL_TRY(perm.status());
  Shape out;
  for (int64_t axis : *perm)
    out.push_back(in[size_t(axis)]);
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  return Status::success();
}

// Strides of the input, in the order of the output's dims.
std::vector<Dim> permutedStrides(const Shape &in, const std::vector<int64_t> &perm) {
  std::vector<Dim> own = contiguousStrides(in), strides;
  for (int64_t axis : perm)
    strides.push_back(own[size_t(axis)]);
  return strides;
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  std::vector<int64_t> perm = *permutation(node, in[0]->type().rank());
  const Shape &shape = out[0].shape();
  copyStrided(*in[0], 0, staticDims(permutedStrides(in[0]->shape(), perm)), out[0], 0,
              staticStrides(shape), out[0].dims());
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Shape &in = node.input(0)->type().shape;
  std::vector<int64_t> perm = *permutation(node, int64_t(in.size()));
  const Shape &out = node.output(0)->type().shape;
  return emitStridedCopy(ctx, node.input(0), 0, permutedStrides(in, perm), node.output(0), 0,
                         contiguousStrides(out), out);
}

} // namespace

extern const OpDefinition kTransposeOp = {
    OpSchema{"Transpose", 1, 1, 1, 1, {{"perm", AttrKind::Ints}}, infer, eval}, lower};

} // namespace cuvil::ops
