// cuvil.ElementwiseChain: several elementwise steps in one pass over the
// data, made by the fuse-elementwise pass:
//   v = X; for each step: v = f(v) | v op W_k | W_k op v; y = v
// X (and y) have the result's shape; the operands W_0..W_3 broadcast to it.
// Attributes, one entry per step: `steps`, the op (any op with
// ElementwiseFacts); `operands`, k for a binary step, -1 for a unary one;
// `operand_first`, 1 when W_k is the binary op's left operand. `params`
// holds the unary steps' parameters in order (ElementwiseFacts::params).
#include "Elementwise.h"
#include "cuvil/kernels/Elementwise.h"

namespace cuvil::ops {
namespace {

struct Step {
  const OpDefinition *op;
  int64_t operand; // -1: unary
  bool operandFirst;
  std::vector<float> params;
};

Expected<std::vector<Step>> steps(const Node &node) {
  std::vector<std::string> ops = node.getStrings("steps");
  std::vector<int64_t> operands = node.getInts("operands");
  std::vector<int64_t> operandFirst = node.getInts("operand_first");
  std::vector<float> params = node.getFloats("params");
  if (operands.size() != ops.size() || operandFirst.size() != ops.size())
    return Status::error("steps, operands and operand_first differ in length");
  std::vector<Step> result;
  size_t nextParam = 0;
  for (size_t s = 0; s < ops.size(); ++s) {
    const OpDefinition *op = findOpDefinition(ops[s]);
    if (!op || !op->schema.elementwise)
      return Status::error(fmt::format("step {}: {} is not an elementwise op", s, ops[s]));
    const ElementwiseFacts &facts = *op->schema.elementwise;
    bool unary = facts.arity == ElementwiseFacts::Arity::Unary;
    int64_t operand = operands[s];
    if (unary != (operand == -1) ||
        (!unary && (operand < 0 || operand + 1 >= int64_t(node.numInputs()))))
      return Status::error(fmt::format("step {} ({}) reads operand {}", s, ops[s], operand));
    size_t count = unary ? facts.paramCount : 0;
    if (nextParam + count > params.size())
      return Status::error(fmt::format("step {} ({}) lacks its parameters", s, ops[s]));
    result.push_back({op, operand, operandFirst[s] != 0,
                      std::vector<float>(params.begin() + int64_t(nextParam),
                                         params.begin() + int64_t(nextParam + count))});
    nextParam += count;
  }
  if (nextParam != params.size())
    return Status::error("more params than the steps take");
  if (result.size() > CUVIL_CHAIN_MAX_STEPS)
    return Status::error(
        fmt::format("{} steps; the chain kernel takes {}", result.size(), CUVIL_CHAIN_MAX_STEPS));
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

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  Expected<std::vector<Step>> program = steps(node);
  CUVIL_TRY(program.status());
  const Shape &shape = out[0].shape();
  std::vector<int64_t> dims = out[0].dims();
  std::vector<std::vector<int64_t>> strides;
  for (size_t i = 1; i < in.size(); ++i)
    strides.push_back(staticBroadcastStrides(in[i]->shape(), shape));
  for (int64_t flat = 0, n = out[0].numElements(); flat < n; ++flat) {
    double v = in[0]->getDouble(flat);
    for (const Step &step : *program) {
      if (step.operand < 0) {
        v = step.op->elementwise.unaryReference(v, step.params);
        continue;
      }
      int64_t offset = 0, rest = flat;
      for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
        offset += (rest % dims[size_t(d)]) * strides[size_t(step.operand)][size_t(d)];
        rest /= dims[size_t(d)];
      }
      double w = in[size_t(step.operand) + 1]->getDouble(offset);
      v = step.operandFirst ? step.op->elementwise.binaryReference(w, v)
                            : step.op->elementwise.binaryReference(v, w);
    }
    out[0].setDouble(flat, v);
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<std::vector<Step>> program = steps(node);
  CUVIL_TRY(program.status());
  const Shape &shape = node.output(0)->type().shape;
  std::vector<std::vector<Dim>> strides = {contiguousStrides(shape)};
  for (size_t i = 1; i < node.numInputs(); ++i)
    strides.push_back(broadcastStrides(node.input(i)->type().shape, shape));
  while (strides.size() < 1 + CUVIL_CHAIN_MAX_OPERANDS) // unused operands step by 0
    strides.push_back(std::vector<Dim>(shape.size(), 0));
  Expected<StridedSpace> space = makeStridedSpace(shape, strides);
  CUVIL_TRY(space.status());
  ParamBlock<cuvil_chain_params> params;
  params->steps = int64_t(program->size());
  space->setShape(params, params->shape);
  for (size_t k = 0; k < CUVIL_CHAIN_MAX_OPERANDS; ++k)
    space->setStrides(params, k + 1, params->operand_strides[k]);
  for (size_t s = 0; s < program->size(); ++s) {
    const Step &step = (*program)[s];
    cuvil_chain_step &out = params->step[s];
    if (step.operand < 0) {
      cuvil_unary f = unaryKernelOf(*step.op, step.params);
      out = {CUVIL_CHAIN_UNARY, f.op, -1, f.alpha, f.beta};
    } else {
      out = {step.operandFirst ? CUVIL_CHAIN_OPERAND_FIRST : CUVIL_CHAIN_VALUE_FIRST,
             step.op->elementwise.op, step.operand, 0, 0};
    }
  }
  std::vector<KernelArg> args = {KernelArg::pointer(node.input(0))};
  for (size_t k = 1; k <= CUVIL_CHAIN_MAX_OPERANDS; ++k)
    args.push_back(KernelArg::optionalPointer(node.input(k)));
  args.push_back(KernelArg::pointer(node.output(0)));
  args.push_back(KernelArg::params(params));
  return ctx.callKernel(kElementwiseChainKernel, args, space->rows());
}

} // namespace

extern const OpDefinition kElementwiseChainOp = {OpSchema{"cuvil.ElementwiseChain",
                                                          1,
                                                          1 + CUVIL_CHAIN_MAX_OPERANDS,
                                                          1,
                                                          1,
                                                          {{"steps", AttrKind::Strings},
                                                           {"operands", AttrKind::Ints},
                                                           {"operand_first", AttrKind::Ints},
                                                           {"params", AttrKind::Floats}},
                                                          infer,
                                                          eval},
                                                 lower};

} // namespace cuvil::ops
