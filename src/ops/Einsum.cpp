// Einsum: sums of products over the labels of an equation in numpy's
// grammar (cuvil/ir/Einsum.h): transposes, diagonals, sums, batched
// matrix products, explicit or implicit output, ellipses; a label's dim 1
// broadcasts against its other dims. canonicalize turns f32 contractions
// into MatMul (the GEMM kernel) and splits more than two operands into
// steps; what remains (one or two operands) runs the general kernel, one
// loop per label.
#include "cuvil/ir/Einsum.h"
#include "OpSupport.h"
#include "cuvil/kernels/LinearAlgebra.h"

namespace cuvil::ops {
namespace {

bool supported(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::I32 || dtype == DType::I64;
}

struct Contraction {
  EinsumEquation equation;
  std::vector<Dim> labelDims;
};

Expected<Contraction> contraction(const Node &node) {
  std::vector<size_t> ranks;
  std::vector<Shape> shapes;
  for (const Value *input : node.inputs()) {
    if (!input)
      return Status::error("inputs must not be omitted");
    shapes.push_back(input->type().shape);
    ranks.push_back(input->type().shape.size());
  }
  Expected<EinsumEquation> equation = parseEinsum(node.getString("equation"), ranks);
  CUVIL_TRY(equation.status());
  Expected<std::vector<Dim>> dims = einsumLabelDims(*equation, shapes);
  CUVIL_TRY(dims.status());
  return Contraction{equation.take(), dims.take()};
}

Status infer(InferContext &ctx) {
  DType dtype = ctx.inputDType(0);
  if (!supported(dtype))
    return ctx.error("element type {} is not supported (f32, f64, i32, i64 are)", dtypeName(dtype));
  for (size_t i = 1; i < ctx.numInputs(); ++i)
    if (ctx.hasInput(i) && ctx.inputDType(i) != dtype)
      return ctx.error("input {} is {}, input 0 {}: they must agree", i,
                       dtypeName(ctx.inputDType(i)), dtypeName(dtype));
  Expected<Contraction> c = contraction(ctx.node());
  CUVIL_TRY(c.status());
  Shape out;
  for (int label : c->equation.output)
    out.push_back(c->labelDims[size_t(label)]);
  ctx.setOutput(0, TensorType{dtype, out});
  return Status::success();
}

// The loops of a contraction: the output's labels, then the summed ones,
// with each operand's element stride per loop.
struct Loops {
  std::vector<Dim> extents;
  std::vector<std::vector<Dim>> strides; // per operand
  size_t outLoops = 0;
};

Loops loopsOf(const Contraction &c, const std::vector<Shape> &shapes) {
  std::vector<int> labels = c.equation.output, summed = c.equation.summedLabels();
  labels.insert(labels.end(), summed.begin(), summed.end());
  Loops loops;
  loops.outLoops = c.equation.output.size();
  for (int label : labels)
    loops.extents.push_back(c.labelDims[size_t(label)]);
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::vector<Dim> own = contiguousStrides(shapes[i]), strides(labels.size(), Dim(0));
    for (size_t l = 0; l < labels.size(); ++l)
      for (size_t axis = 0; axis < shapes[i].size(); ++axis)
        if (c.equation.operands[i][axis] == labels[l] && !shapes[i][axis].is(1))
          strides[l] += own[axis];
    loops.strides.push_back(std::move(strides));
  }
  return loops;
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  Expected<Contraction> c = contraction(node);
  CUVIL_TRY(c.status());
  std::vector<Shape> shapes;
  for (const Tensor *tensor : in)
    shapes.push_back(tensor->shape());
  Loops loops = loopsOf(*c, shapes);
  std::vector<int64_t> extents = staticDims(loops.extents), index(extents.size(), 0);
  std::vector<std::vector<int64_t>> strides;
  for (const std::vector<Dim> &s : loops.strides)
    strides.push_back(staticDims(s));
  bool integral = !isFloat(out[0].dtype());
  int64_t total = 1, outputs = out[0].numElements();
  for (int64_t extent : extents)
    total *= extent;
  std::vector<double> sums(size_t(outputs), 0.0);
  std::vector<uint64_t> integerSums(size_t(outputs), 0); // wrapping, as the kernel
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t at = 0;
    for (size_t d = 0; d < loops.outLoops; ++d)
      at = at * extents[d] + index[d];
    double product = 1.0;
    uint64_t integerProduct = 1;
    for (size_t i = 0; i < in.size(); ++i) {
      int64_t offset = 0;
      for (size_t d = 0; d < extents.size(); ++d)
        offset += index[d] * strides[i][d];
      if (integral)
        integerProduct *= uint64_t(in[i]->getInt(offset));
      else
        product *= in[i]->getDouble(offset);
    }
    sums[size_t(at)] += product;
    integerSums[size_t(at)] += integerProduct;
    for (int64_t d = int64_t(extents.size()) - 1;
         d >= 0 && ++index[size_t(d)] == extents[size_t(d)]; --d)
      index[size_t(d)] = 0;
  }
  for (int64_t i = 0; i < outputs; ++i) {
    if (integral)
      out[0].setInt(i, int64_t(integerSums[size_t(i)]));
    else
      out[0].setDouble(i, sums[size_t(i)]);
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  if (node.numInputs() > 2)
    return Status::error("an Einsum of more than two operands must first be split into steps "
                         "(canonicalize does)");
  Expected<Contraction> c = contraction(node);
  CUVIL_TRY(c.status());
  std::vector<Shape> shapes;
  for (const Value *input : node.inputs())
    shapes.push_back(input->type().shape);
  Loops loops = loopsOf(*c, shapes);
  if (loops.extents.size() > CUVIL_EINSUM_MAX_LOOPS)
    return Status::error(fmt::format("the equation has {} labels; the kernel takes at most {}",
                                     loops.extents.size(), CUVIL_EINSUM_MAX_LOOPS));
  ParamBlock<cuvil_einsum_params> params;
  params->out_loops = int64_t(loops.outLoops);
  params->loops = int64_t(loops.extents.size());
  for (size_t d = 0; d < loops.extents.size(); ++d) {
    params.set(params->extents[d], loops.extents[d]);
    params.set(params->a_strides[d], loops.strides[0][d]);
    params.set(params->b_strides[d], shapes.size() > 1 ? loops.strides[1][d] : Dim(0));
  }
  Expected<const KernelRef *> kernel = einsumKernel(node.input(0)->type().dtype);
  CUVIL_TRY(kernel.status());
  const Shape &out = node.output(0)->type().shape;
  Dim rows = out.empty() ? Dim(1) : numElements(std::span(out).first(out.size() - 1));
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(node.input(0)),
                         KernelArg::optionalPointer(node.input(1)),
                         KernelArg::pointer(node.output(0)), KernelArg::params(params)},
                        rows);
}

} // namespace

extern const OpDefinition kEinsumOp = {
    OpSchema{"Einsum",
             1,
             1 << 20,
             1,
             1,
             {{"equation", AttrKind::String, std::nullopt, /*required=*/true}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
