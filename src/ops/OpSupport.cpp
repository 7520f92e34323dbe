#include "OpSupport.h"

#include "cuvil/kernels/DataMovement.h"

#include <algorithm>
#include <set>

namespace cuvil::ops {

Status inferFloatAlongAxis(InferContext &ctx) {
  Expected<int64_t> axis =
      normalizeAxis(ctx.node().getInt("axis"), int64_t(ctx.inputShape(0).size()));
  if (!axis)
    return ctx.error("{}", axis.status().message());
  if (!isFloat(ctx.inputDType(0)))
    return ctx.error("expects float x, got {}", dtypeName(ctx.inputDType(0)));
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (rank == 0)
    return Status::error(fmt::format("axis {} of a scalar: the op needs rank 1 or more", axis));
  if (axis < -rank || axis >= rank)
    return Status::error(fmt::format("axis {} is out of range for rank {}", axis, rank));
  return axis < 0 ? axis + rank : axis;
}

Expected<AxisSplit> splitAtAxis(const Shape &shape, int64_t axis) {
  Expected<int64_t> normalized = normalizeAxis(axis, int64_t(shape.size()));
  CUVIL_TRY(normalized.status());
  std::span<const Dim> dims(shape);
  return AxisSplit{*normalized, numElements(dims.first(size_t(*normalized))),
                   shape[size_t(*normalized)], numElements(dims.subspan(size_t(*normalized) + 1))};
}

Expected<AxisSplit> splitAtOptionalAxis(const Node &node, const Shape &shape) {
  if (!node.hasAttr("axis"))
    return AxisSplit{std::nullopt, 1, numElements(shape), 1};
  return splitAtAxis(shape, node.getInt("axis"));
}

Expected<std::vector<int64_t>> normalizeAxes(const std::vector<int64_t> &axes, int64_t rank) {
  std::vector<int64_t> result;
  for (int64_t axis : axes) {
    Expected<int64_t> normalized = normalizeAxis(axis, rank);
    CUVIL_TRY(normalized.status());
    if (std::count(result.begin(), result.end(), *normalized))
      return Status::error(fmt::format("axis {} is repeated", axis));
    result.push_back(*normalized);
  }
  return result;
}

Dim multiplyAddFlops(const Value *output, const Dim &multiplyAdds) {
  return 2 * output->type().numElements() * multiplyAdds;
}

Dim convolutionFlops(const Value *output, const Value *weights, const Dim &outputChannels) {
  return multiplyAddFlops(output, floorDiv(weights->type().numElements(), outputChannels));
}

cuvil_window2d kernelWindow(const WindowGeometry::StaticWindow2D &g) {
  return {g.H, g.W, g.OH, g.OW, g.KH, g.KW, g.SH, g.SW, g.DH, g.DW, g.PT, g.PL, g.PB, g.PR};
}

int64_t product(const std::vector<int64_t> &values) {
  int64_t result = 1;
  for (int64_t value : values)
    result *= value;
  return result;
}

StaticWindow::StaticWindow(const WindowGeometry &g)
    : input(staticDims(g.input)), output(staticDims(g.output)), kernel(g.kernel),
      strides(g.strides), dilations(g.dilations), padsBegin(staticDims(g.padsBegin)),
      padsEnd(staticDims(g.padsEnd)) {}

int64_t StaticWindow::inputOffset(const std::vector<int64_t> &out,
                                  const std::vector<int64_t> &tap) const {
  int64_t offset = 0;
  for (size_t d = 0; d < input.size(); ++d) {
    int64_t at = out[d] * strides[d] - padsBegin[d] + tap[d] * dilations[d];
    if (at < 0 || at >= input[d])
      return -1;
    offset = offset * input[d] + at;
  }
  return offset;
}

Expected<std::vector<int64_t>> permutationAttr(const Node &node, const std::string &name,
                                               size_t rank, std::vector<int64_t> fallback) {
  std::vector<int64_t> perm = node.hasAttr(name) ? node.getInts(name) : std::move(fallback);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != int64_t(i) || perm.size() != rank)
      return Status::error(
          fmt::format("{} [{}] is not a permutation of rank {}", name, fmt::join(perm, ","), rank));
  return perm;
}

std::vector<int64_t> staticStrides(const Shape &shape) {
  return staticDims(contiguousStrides(shape));
}

std::vector<int64_t> staticBroadcastStrides(const Shape &operand, const Shape &out) {
  return staticDims(broadcastStrides(operand, out));
}

Expected<StridedSpace> makeStridedSpace(const Shape &shape,
                                        const std::vector<std::vector<Dim>> &strides) {
  // Drop size-1 dims, then merge dim d into d+1 when every operand steps over
  // d exactly as if d and d+1 were one dimension.
  Shape dims;
  std::vector<std::vector<Dim>> operandStrides(strides.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d].is(1))
      continue;
    dims.push_back(shape[d]);
    for (size_t o = 0; o < strides.size(); ++o)
      operandStrides[o].push_back(strides[o][d]);
  }
  for (size_t d = dims.size(); d-- > 1;) {
    bool mergeable = std::all_of(operandStrides.begin(), operandStrides.end(),
                                 [&](auto &s) { return s[d - 1] == s[d] * dims[d]; });
    if (!mergeable)
      continue;
    dims[d - 1] *= dims[d];
    dims.erase(dims.begin() + int64_t(d));
    for (auto &s : operandStrides) {
      s[d - 1] = s[d];
      s.erase(s.begin() + int64_t(d));
    }
  }
  if (dims.size() > CUVIL_MAX_RANK)
    return Status::error(fmt::format("needs a rank-{} iteration space; kernels take at most {}",
                                     dims.size(), CUVIL_MAX_RANK));
  StridedSpace space;
  size_t pad = CUVIL_MAX_RANK - dims.size();
  space.shape.assign(pad, Dim(1));
  space.shape.insert(space.shape.end(), dims.begin(), dims.end());
  for (auto &s : operandStrides) {
    std::vector<Dim> padded(pad, Dim(0));
    padded.insert(padded.end(), s.begin(), s.end());
    space.strides.push_back(std::move(padded));
  }
  return space;
}

Status emitStridedCopy(LoweringContext &ctx, const Value *src, const Dim &srcByteOffset,
                       const std::vector<Dim> &srcStrides, const Value *dst,
                       const Dim &dstByteOffset, const std::vector<Dim> &dstStrides,
                       const Shape &shape) {
  if (numElements(shape).is(0))
    return Status::success();
  Expected<StridedSpace> space = makeStridedSpace(shape, {srcStrides, dstStrides});
  CUVIL_TRY(space.status());
  Expected<const KernelRef *> kernel = copyKernel(dtypeSize(src->type().dtype));
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_copy_params> params;
  space->setShape(params, params->shape);
  space->setStrides(params, 0, params->src_strides);
  space->setStrides(params, 1, params->dst_strides);
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(src, srcByteOffset),
                         KernelArg::pointer(dst, dstByteOffset), KernelArg::params(params)},
                        space->rows());
}

Status lowerCompileTimeOnly(const Node &, LoweringContext &) {
  return Status::error("internal error: this op packs constants at compile time and has no "
                       "kernel; its input is not a constant");
}

Status lowerViewOrCopy(const Node &node, LoweringContext &ctx) {
  const Value *src = node.input(0), *dst = node.output(0);
  if (ctx.storedAt(src, dst, 0))
    return Status::success();
  // Views keep the bytes in order: copy them as one flat run.
  Shape flat = {dst->type().numElements()};
  return emitStridedCopy(ctx, src, 0, {Dim(1)}, dst, 0, {Dim(1)}, flat);
}

void copyStrided(const Tensor &src, int64_t srcOffset, const std::vector<int64_t> &srcStrides,
                 Tensor &dst, int64_t dstOffset, const std::vector<int64_t> &dstStrides,
                 const std::vector<int64_t> &shape) {
  size_t elementSize = dtypeSize(src.dtype());
  const uint8_t *from = src.bytes();
  uint8_t *to = dst.mutableBytes();
  std::vector<int64_t> index(shape.size(), 0);
  int64_t n = 1;
  for (int64_t dim : shape)
    n *= dim;
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t s = srcOffset, d = dstOffset;
    for (size_t i = 0; i < shape.size(); ++i) {
      s += index[i] * srcStrides[i];
      d += index[i] * dstStrides[i];
    }
    std::copy_n(from + s * int64_t(elementSize), elementSize, to + d * int64_t(elementSize));
    for (int64_t i = int64_t(shape.size()) - 1; i >= 0; --i) {
      if (++index[size_t(i)] < shape[size_t(i)])
        break;
      index[size_t(i)] = 0;
    }
  }
}

namespace {

// The first graph input of unknown values that `value` is computed from
// (itself, when it is one) and that --value can fix: an integer or bool
// one, or a small floating-point one (Resize's scales), or null.
const Value *unknownValueInput(const Value *value, std::set<const Value *> &seen) {
  if (!value || !seen.insert(value).second || value->isConstant())
    return nullptr;
  if (value->isGraphInput()) {
    if (!value->hasType() || value->dimValues() || value->producer())
      return nullptr;
    const TensorType &type = value->type();
    bool integer =
        type.dtype == DType::I64 || type.dtype == DType::I32 || type.dtype == DType::Bool;
    bool smallReal = isFloat(type.dtype) && type.isStatic() && type.numElements().constant() <= 64;
    return integer || smallReal ? value : nullptr;
  }
  if (const Node *producer = value->producer())
    for (const Value *operand : producer->inputs())
      if (const Value *found = unknownValueInput(operand, seen))
        return found;
  return nullptr;
}

// Why input `input` of `node` cannot be read at compile time, with the fix
// when it is a graph input or computed from one (its values fixed or
// ranged, as TensorRT's profiles do for shape tensors).
Status notKnown(const Node &node, size_t input, const char *what, bool rangeWorks) {
  std::string message =
      fmt::format("{} (input {}) must be known at compile time; it is computed from run-time data",
                  what, input);
  std::set<const Value *> seen;
  const Value *value = node.input(input);
  if (const Value *source = unknownValueInput(value, seen))
    message += fmt::format(": fix the values of graph input '{}' with --value {}=V,V,...{}",
                           source->name(), source->name(),
                           rangeWorks && source == value && !isFloat(source->type().dtype)
                               ? fmt::format(" or give their range with --value-range "
                                             "{}=MIN,..:OPT,..:MAX,..",
                                             value->name())
                               : "");
  return Status::error(message);
}

} // namespace

Expected<DType> numericTypeAttribute(const Node &node, const char *name) {
  int64_t code = node.getInt(name);
  std::optional<DType> dtype = dtypeFromOnnxCode(int(code));
  if (!dtype || *dtype == DType::Bool)
    return Status::error(fmt::format("{} {} is not a numeric ONNX type", name, code));
  return *dtype;
}

Expected<std::vector<int64_t>> constantInts(const Node &node, size_t input, const char *what) {
  const Value *value = node.input(input);
  if (value && value->isConstant())
    return value->constant().toInt64s();
  if (const std::vector<Dim> *dims = value ? value->dimValues() : nullptr; dims && isStatic(*dims))
    return staticDims(*dims);
  return notKnown(node, input, what, /*rangeWorks=*/false);
}

Expected<std::vector<double>> constantReals(const Node &node, size_t input, const char *what) {
  const Value *value = node.input(input);
  if (!value || !value->isConstant())
    return notKnown(node, input, what, /*rangeWorks=*/false);
  const Tensor &tensor = value->constant();
  std::vector<double> values;
  for (int64_t i = 0; i < tensor.numElements(); ++i)
    values.push_back(tensor.getDouble(i));
  return values;
}

Expected<std::vector<Dim>> dimsInput(const Node &node, size_t input, const char *what) {
  const Value *value = node.input(input);
  if (const std::vector<Dim> *dims = value ? value->dimValues() : nullptr)
    return *dims;
  if (value && value->isConstant()) {
    std::vector<int64_t> values = value->constant().toInt64s();
    return std::vector<Dim>(values.begin(), values.end());
  }
  return notKnown(node, input, what, /*rangeWorks=*/true);
}

std::optional<std::vector<Dim>> inputDimValues(const InferContext &ctx, size_t i) {
  if (!ctx.hasInput(i))
    return std::nullopt;
  if (const std::vector<Dim> *dims = ctx.inputDims(i))
    return *dims;
  // A bool one too: Where's condition, once an Equal of dims folds to a
  // constant (Equal(shape, ConstantOfShape(...) * -1) in exported Expands).
  const Tensor *tensor = ctx.constantInput(i);
  if (!tensor ||
      !(isSignedInt(tensor->dtype()) || isUnsignedInt(tensor->dtype()) ||
        tensor->dtype() == DType::Bool) ||
      tensor->numElements() > kMaxDimValues)
    return std::nullopt;
  std::vector<int64_t> values = tensor->toInt64s();
  return std::vector<Dim>(values.begin(), values.end());
}

bool carriesDimValues(const InferContext &ctx, size_t i) {
  const Value *result = ctx.node().output(i);
  if (!result->hasType() || !result->type().isStatic())
    return false;
  DType dtype = result->type().dtype;
  return (isSignedInt(dtype) || isUnsignedInt(dtype) || dtype == DType::Bool) &&
         result->type().numElements().constant() <= kMaxDimValues;
}

void forwardDimValues(InferContext &ctx) {
  if (!ctx.inputDims(0) || !carriesDimValues(ctx, 0))
    return;
  const std::vector<Dim> &dims = *ctx.inputDims(0);
  if (int64_t(dims.size()) == ctx.node().output(0)->type().numElements().constant())
    ctx.setOutputDims(0, dims);
}

} // namespace cuvil::ops
