// cuvil.ElementwiseChain: several elementwise steps in one pass over the
// data, made by the fuse-elementwise pass:
//   v = X; for each step: v = f(v) | v op W_k | W_k op v; y = v
// X (and y) have the result's shape; the operands W_0..W_3 broadcast to it.
// `program` holds 3 ints per step: kind (0 unary, 1 v op w, 2 w op v), the
// kernel op code (cuvil_unary_op / cuvil_binary_op) and the operand index;
// `params` holds 2 floats per step (alpha, beta of unary ops).
#include "Elementwise.h"
#include "FusedActivation.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {

struct Step {
  int64_t kind, code, operand;
  float alpha, beta;
};

Expected<std::vector<Step>> steps(const Node &node) {
  std::vector<int64_t> program = node.getInts("program");
  std::vector<float> params = node.getFloats("params");
  if (program.size() % 3 != 0 || params.size() != program.size() / 3 * 2)
    return Status::error("program and params do not describe the same steps");
  std::vector<Step> result;
  for (size_t s = 0; s < program.size() / 3; ++s) {
    Step step{program[3 * s], program[3 * s + 1], program[3 * s + 2], params[2 * s],
              params[2 * s + 1]};
    if (step.kind < 0 || step.kind > 2 ||
        (step.kind != 0 && (step.operand < 0 || step.operand + 1 >= int64_t(node.numInputs()))))
      return Status::error(fmt::format("step {} is malformed", s));
    result.push_back(step);
  }
  return result;
}

Status infer(InferContext &ctx) {
  CUVIL_TRY(steps(ctx.node()).status());
  const TensorType &x = ctx.inputType(0);
  if (x.dtype != DType::F32)
    return ctx.error("only f32 chains are fused");
  for (size_t i = 1; i < ctx.numInputs(); ++i) {
    Expected<Shape> broadcast = broadcastShapes(ctx.inputShape(i), x.shape);
    if (ctx.inputDType(i) != DType::F32 || !broadcast || *broadcast != x.shape)
      return ctx.error("operand {} does not broadcast to {}", i, x.str());
  }
  ctx.setOutput(0, x);
  return Status::success();
}

double binaryReference(int64_t code, double a, double b) {
  switch (code) {
  case CUVIL_BINARY_ADD:
    return a + b;
  case CUVIL_BINARY_SUB:
    return a - b;
  case CUVIL_BINARY_MUL:
    return a * b;
  case CUVIL_BINARY_DIV:
    return a / b;
  case CUVIL_BINARY_POW:
    return std::pow(a, b);
  case CUVIL_BINARY_MAX:
    return std::max(a, b);
  case CUVIL_BINARY_MIN:
    return std::min(a, b);
  default:
    return a;
  }
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  std::vector<Step> program = *steps(node);
  const Shape &shape = out[0].shape();
  std::vector<std::vector<int64_t>> strides;
  for (size_t i = 1; i < in.size(); ++i)
    strides.push_back(broadcastStrides(in[i]->shape(), shape));
  for (int64_t flat = 0, n = out[0].numElements(); flat < n; ++flat) {
    double v = in[0]->getDouble(flat);
    for (const Step &step : program) {
      if (step.kind == 0) {
        v = unaryReference(step.code, v, step.alpha, step.beta);
        continue;
      }
      int64_t offset = 0, rest = flat;
      for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
        offset += (rest % shape[size_t(d)]) * strides[size_t(step.operand)][size_t(d)];
        rest /= shape[size_t(d)];
      }
      double w = in[size_t(step.operand) + 1]->getDouble(offset);
      v = step.kind == 1 ? binaryReference(step.code, v, w) : binaryReference(step.code, w, v);
    }
    out[0].setDouble(flat, v);
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  std::vector<Step> program = *steps(node);
  const Shape &shape = node.output(0)->type().shape;
  std::vector<std::vector<int64_t>> strides = {contiguousStrides(shape)};
  for (size_t i = 1; i < node.numInputs(); ++i)
    strides.push_back(broadcastStrides(node.input(i)->type().shape, shape));
  while (strides.size() < 5) // unused operands step by 0
    strides.push_back(std::vector<int64_t>(shape.size(), 0));
  Expected<StridedSpace> space = makeStridedSpace(shape, strides);
  CUVIL_TRY(space.status());
  std::vector<int64_t> codes = {int64_t(program.size())}, operandStrides;
  std::vector<float> params;
  for (const Step &step : program) {
    codes.insert(codes.end(), {step.kind, step.code, step.operand, 0});
    params.insert(params.end(), {step.alpha, step.beta});
  }
  for (size_t k = 1; k < 5; ++k)
    operandStrides.insert(operandStrides.end(), space->strides[k].begin(), space->strides[k].end());
  std::vector<KernelArg> args = {KernelArg::pointer(node.input(0))};
  for (size_t k = 1; k < 5; ++k)
    args.push_back(KernelArg::optionalPointer(node.input(k)));
  args.insert(args.end(),
              {KernelArg::pointer(node.output(0)), KernelArg::constantArray(codes),
               KernelArg::constantF32Array(params), KernelArg::constantArray(space->shape),
               KernelArg::constantArray(operandStrides)});
  ctx.callKernel("cuvil_elementwise_chain_f32", args, space->rows());
  return Status::success();
}

} // namespace

extern const OpDefinition kElementwiseChainOp = {
    OpSchema{"cuvil.ElementwiseChain",
             1,
             5,
             1,
             1,
             {{"program", AttrKind::Ints}, {"params", AttrKind::Floats}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
