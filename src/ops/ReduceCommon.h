// Reductions over a set of axes (ReduceMean, ReduceSum, ... and the global
// pools). Axes come from the constant `axes` input (the importer turns
// attribute forms into it); keepdims and noop_with_empty_axes as in ONNX.
#pragma once

#include "OpSupport.h"
#include "cuvil/kernels/Reduce.h"

namespace cuvil::ops {

struct ReduceTraits {
  std::string_view name;
  cuvil_reduce_op code;
};

// The axes a node reduces, normalised and sorted.
Expected<std::vector<int64_t>> reduceAxes(const Node &node, int64_t rank);
Status inferReduce(InferContext &ctx);
Status evalReduce(const Tensor &x, const std::vector<int64_t> &axes, cuvil_reduce_op op, Tensor &y);
Status lowerReduce(const Value *x, const Value *y, const std::vector<int64_t> &axes,
                   cuvil_reduce_op op, LoweringContext &ctx);

std::vector<AttrSpec> reduceAttributes();

template <const ReduceTraits &Traits> struct ReduceOp {
  static Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
    Expected<std::vector<int64_t>> axes = reduceAxes(node, in[0]->type().rank());
    CUVIL_TRY(axes.status());
    return evalReduce(*in[0], *axes, Traits.code, out[0]);
  }
  static Status lower(const Node &node, LoweringContext &ctx) {
    Expected<std::vector<int64_t>> axes = reduceAxes(node, node.input(0)->type().rank());
    CUVIL_TRY(axes.status());
    return lowerReduce(node.input(0), node.output(0), *axes, Traits.code, ctx);
  }
  static OpDefinition definition() {
    return {OpSchema{Traits.name, 1, 2, 1, 1, reduceAttributes(), inferReduce, eval}, lower};
  }
};

// Global pools: the reduction over every spatial dim of N-C-spatial input,
// y shaped [N, C, 1, ...].
std::vector<int64_t> spatialAxes(int64_t rank);
Status inferGlobalPool(InferContext &ctx);

template <const ReduceTraits &Traits> struct GlobalPoolOp {
  static Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
    return evalReduce(*in[0], spatialAxes(in[0]->type().rank()), Traits.code, out[0]);
  }
  static Status lower(const Node &node, LoweringContext &ctx) {
    return lowerReduce(node.input(0), node.output(0), spatialAxes(node.input(0)->type().rank()),
                       Traits.code, ctx);
  }
  static OpDefinition definition() {
    return {OpSchema{Traits.name, 1, 1, 1, 1, {}, inferGlobalPool, eval}, lower};
  }
};

} // namespace cuvil::ops
