// Range: start, start + delta, ... up to (not including) limit, from three
// scalars of one type; max(ceil((limit - start) / delta), 0) elements.
// Integer bounds may be dims (a sequence length from Shape, a --value-range
// symbol) with a constant delta, so the extent is an expression; so may
// float ones that are integers cast to float (a window size), with a
// constant integral delta; other float bounds must be constants. Small
// results carry their elements as dims, so shape computations through a
// Range stay known.
#include "OpSupport.h"
#include "cuvil/kernels/DataMovement.h"

#include <cmath>

namespace cuvil::ops {
namespace {

bool isRangeType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::I16 || dtype == DType::I32 ||
         dtype == DType::I64;
}

// The three scalars of an integer Range as dims.
struct IntegerBounds {
  Dim start, limit;
  int64_t delta;
};

Expected<IntegerBounds> integerBounds(const Node &node) {
  std::vector<Dim> scalars;
  for (size_t i = 0; i < 3; ++i) {
    Expected<std::vector<Dim>> dims = dimsInput(node, i, std::array{"start", "limit", "delta"}[i]);
    CUVIL_TRY(dims.status());
    scalars.push_back(dims->at(0));
  }
  if (!scalars[2].isConstant())
    return Status::error(fmt::format("delta must be a constant, is {}", scalars[2]));
  if (scalars[2].is(0))
    return Status::error("delta is 0");
  return IntegerBounds{scalars[0], scalars[1], scalars[2].constant()};
}

// Float bounds that hold integers: dims a Cast carries, or constants of
// integral value; nullopt unless all three do and delta is a constant.
std::optional<IntegerBounds> integralFloatBounds(const Node &node) {
  std::vector<Dim> scalars;
  for (size_t i = 0; i < 3; ++i) {
    const Value *value = node.input(i);
    if (const std::vector<Dim> *dims = value->dimValues()) {
      scalars.push_back(dims->at(0));
      continue;
    }
    double bound = value->isConstant() ? value->constant().getDouble(0) : 0.5;
    if (bound != std::trunc(bound) || std::abs(bound) > 0x1p53)
      return std::nullopt;
    scalars.push_back(Dim(int64_t(bound)));
  }
  if (!scalars[2].isConstant() || scalars[2].is(0))
    return std::nullopt;
  return IntegerBounds{scalars[0], scalars[1], scalars[2].constant()};
}

// For a bound cast from a graph input, how to make it known.
std::string graphInputHint(const Value *bound) {
  while (bound->producer() && bound->producer()->op() == "Cast")
    bound = bound->producer()->input(0);
  if (!bound->isGraphInput())
    return "";
  return fmt::format("; it is cast from graph input '{}': fix the values of graph input '{}' with "
                     "--value {}=V or give their range with --value-range {}=MIN:OPT:MAX",
                     bound->name(), bound->name(), bound->name(), bound->name());
}

Dim integerExtent(const IntegerBounds &b) {
  Dim n = b.delta > 0 ? ceilDiv(b.limit - b.start, b.delta) : ceilDiv(b.start - b.limit, -b.delta);
  return maxDim(n, 0);
}

Expected<Dim> extent(const Node &node) {
  if (isSignedInt(node.input(0)->type().dtype)) {
    Expected<IntegerBounds> b = integerBounds(node);
    CUVIL_TRY(b.status());
    return integerExtent(*b);
  }
  bool constant =
      node.input(0)->isConstant() && node.input(1)->isConstant() && node.input(2)->isConstant();
  if (std::optional<IntegerBounds> b = integralFloatBounds(node); b && !constant)
    return integerExtent(*b);
  double bounds[3];
  for (size_t i = 0; i < 3; ++i) {
    if (!node.input(i)->isConstant())
      return Status::error(fmt::format(
          "{} (input {}) must be known at compile time (a constant, or an integer known at "
          "compile time cast to float): a float Range's extent is computed from its bounds{}",
          std::array{"start", "limit", "delta"}[i], i, graphInputHint(node.input(i))));
    bounds[i] = node.input(i)->constant().getDouble(0);
  }
  if (bounds[2] == 0 || !std::isfinite(bounds[0] + bounds[1] + bounds[2]))
    return Status::error(
        fmt::format("bounds {}, {}, {} give no finite range", bounds[0], bounds[1], bounds[2]));
  double n = std::ceil((bounds[1] - bounds[0]) / bounds[2]);
  if (n > double(int64_t(1) << 40))
    return Status::error(fmt::format("the range has {} elements", n));
  return Dim(std::max<int64_t>(0, int64_t(n)));
}

Status infer(InferContext &ctx) {
  DType dtype = ctx.inputDType(0);
  for (size_t i = 0; i < 3; ++i) {
    if (ctx.inputDType(i) != dtype)
      return ctx.error("start, limit and delta differ in type ({} and {})", dtypeName(dtype),
                       dtypeName(ctx.inputDType(i)));
    if (!ctx.inputType(i).numElements().is(1))
      return ctx.error("input {} must be a scalar, is {}", i, ctx.inputType(i).str());
  }
  if (!isRangeType(dtype))
    return ctx.error("element type {} is not supported", dtypeName(dtype));
  Expected<Dim> n = extent(ctx.node());
  CUVIL_TRY(n.status());
  ctx.setOutput(0, TensorType{dtype, {*n}});
  if (isSignedInt(dtype) && carriesDimValues(ctx, 0)) {
    IntegerBounds b = *integerBounds(ctx.node());
    std::vector<Dim> values;
    for (int64_t i = 0; i < n->constant(); ++i)
      values.push_back(b.start + i * b.delta);
    ctx.setOutputDims(0, values);
  }
  return Status::success();
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  bool integer = isSignedInt(in[0]->dtype());
  for (int64_t i = 0, n = out[0].numElements(); i < n; ++i) {
    if (integer)
      out[0].setInt(i, in[0]->getInt(0) + i * in[2]->getInt(0));
    else
      out[0].setDouble(i, in[0]->getDouble(0) + double(i) * in[2]->getDouble(0));
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<const KernelRef *> kernel = rangeKernel(node.output(0)->type().dtype);
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(node.input(0)), KernelArg::pointer(node.input(2)),
                         KernelArg::pointer(node.output(0))},
                        node.output(0)->type().numElements());
}

} // namespace

extern const OpDefinition kRangeOp = {OpSchema{"Range", 3, 3, 1, 1, {}, infer, eval}, lower};

} // namespace cuvil::ops
