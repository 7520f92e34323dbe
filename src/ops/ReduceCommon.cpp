#include "ReduceCommon.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace cuvil::ops {

std::vector<AttrSpec> reduceAttributes() {
  return {{"keepdims", AttrKind::Int}, {"noop_with_empty_axes", AttrKind::Int}};
}

Expected<std::vector<int64_t>> reduceAxes(const Node &node, int64_t rank) {
  std::vector<int64_t> axes;
  if (node.hasInput(1)) {
    Expected<std::vector<int64_t>> given = constantInts(node, 1, "axes");
    CUVIL_TRY(given.status());
    axes = *given;
  }
  if (axes.empty()) {
    if (node.getInt("noop_with_empty_axes", 0))
      return axes;
    axes.resize(size_t(rank));
    std::iota(axes.begin(), axes.end(), 0);
  }
  Expected<std::vector<int64_t>> normalized = normalizeAxes(axes, rank);
  CUVIL_TRY(normalized.status());
  std::sort(normalized->begin(), normalized->end());
  return normalized;
}

// The reductions that take int32 and int64 tensors (ONNX allows integers
// for these; an integer Mean or norm is rare and unsupported).
bool takesIntegers(std::string_view op) {
  return op == "ReduceMax" || op == "ReduceMin" || op == "ReduceSum" || op == "ReduceProd";
}
bool isReducedInteger(DType dtype) { return dtype == DType::I32 || dtype == DType::I64; }

namespace {

// The reductions a shape computation uses, as dim expressions: torchvision's
// detectors take k = ReduceMin(Concat(limit, Shape(boxes)[0])) for TopK.
using DimFold = Dim (*)(const Dim &, const Dim &);
struct DimReduction {
  std::string_view op;
  DimFold fold;
};
constexpr DimReduction kDimReductions[] = {
    {"ReduceMin", [](const Dim &a, const Dim &b) { return minDim(a, b); }},
    {"ReduceMax", [](const Dim &a, const Dim &b) { return maxDim(a, b); }},
    {"ReduceSum", [](const Dim &a, const Dim &b) { return a + b; }},
    {"ReduceProd", [](const Dim &a, const Dim &b) { return a * b; }},
};

// An input carrying dim values, reduced to one element, gives that element
// as a dim.
void propagateReducedDims(InferContext &ctx, const std::vector<int64_t> &axes) {
  const std::vector<Dim> *dims = ctx.inputDims(0);
  const Shape &x = ctx.inputShape(0);
  if (!dims || dims->empty() || x.size() > 1 || axes.size() != x.size() ||
      !carriesDimValues(ctx, 0))
    return;
  const auto *reduction =
      std::find_if(std::begin(kDimReductions), std::end(kDimReductions),
                   [&](const DimReduction &r) { return r.op == ctx.node().op(); });
  if (reduction == std::end(kDimReductions))
    return;
  Dim result = (*dims)[0];
  for (size_t i = 1; i < dims->size(); ++i)
    result = reduction->fold(result, (*dims)[i]);
  ctx.setOutputDims(0, {result});
}

} // namespace

Status inferReduce(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  Expected<std::vector<int64_t>> axes = reduceAxes(ctx.node(), int64_t(x.size()));
  CUVIL_TRY(axes.status());
  bool keep = ctx.node().getInt("keepdims", 1) != 0;
  Shape out;
  for (size_t d = 0; d < x.size(); ++d) {
    bool reduced = std::binary_search(axes->begin(), axes->end(), int64_t(d));
    if (!reduced)
      out.push_back(x[d]);
    else if (keep)
      out.push_back(1);
  }
  const DType dtype = ctx.inputDType(0);
  if (!isFloat(dtype) && !(takesIntegers(ctx.node().op()) && isReducedInteger(dtype)))
    return ctx.error("expects a float tensor{}, not {}",
                     takesIntegers(ctx.node().op()) ? " or int32/int64" : "", dtypeName(dtype));
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  propagateReducedDims(ctx, *axes);
  return Status::success();
}

namespace {

// Kept and reduced dims of x with their strides, size-1 dims dropped and
// neighbours that are contiguous merged.
struct ReduceSplit {
  std::vector<Dim> keptShape, keptStrides, redShape, redStrides;
};

void appendMerged(std::vector<Dim> &shape, std::vector<Dim> &strides, const Dim &dim,
                  const Dim &stride) {
  if (dim.is(1))
    return;
  if (!shape.empty() && strides.back() == stride * dim) {
    shape.back() *= dim;
    strides.back() = stride;
    return;
  }
  shape.push_back(dim);
  strides.push_back(stride);
}

ReduceSplit splitDims(const Shape &x, const std::vector<int64_t> &axes) {
  ReduceSplit split;
  std::vector<Dim> strides = contiguousStrides(x);
  for (size_t d = 0; d < x.size(); ++d) {
    bool reduced = std::binary_search(axes.begin(), axes.end(), int64_t(d));
    if (reduced)
      appendMerged(split.redShape, split.redStrides, x[d], strides[d]);
    else
      appendMerged(split.keptShape, split.keptStrides, x[d], strides[d]);
  }
  return split;
}

double initial(cuvil_reduce_op op) {
  return op == CUVIL_REDUCE_MAX    ? -INFINITY
         : op == CUVIL_REDUCE_MIN  ? INFINITY
         : op == CUVIL_REDUCE_PROD ? 1.0
                                   : 0.0;
}

double step(cuvil_reduce_op op, double acc, double v) {
  switch (op) {
  case CUVIL_REDUCE_MAX:
    return std::max(acc, v);
  case CUVIL_REDUCE_MIN:
    return std::min(acc, v);
  case CUVIL_REDUCE_PROD:
    return acc * v;
  case CUVIL_REDUCE_SUM_SQUARE:
  case CUVIL_REDUCE_L2:
    return acc + v * v;
  case CUVIL_REDUCE_L1:
    return acc + std::fabs(v);
  default:
    return acc + v;
  }
}

// Integers (int32, int64: Max, Min, Sum, Prod) in int64, wrapping like the
// kernel (through uint64, whose overflow is defined); a double would round
// values past 2^53.
// Max and Min of nothing are the type's lowest and highest values.
int64_t initialInteger(cuvil_reduce_op op, DType dtype) {
  const bool narrow = dtype == DType::I32;
  return op == CUVIL_REDUCE_MAX
             ? (narrow ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min())
         : op == CUVIL_REDUCE_MIN
             ? (narrow ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max())
         : op == CUVIL_REDUCE_PROD ? 1
                                   : 0;
}

int64_t stepInteger(cuvil_reduce_op op, int64_t acc, int64_t v) {
  switch (op) {
  case CUVIL_REDUCE_MAX:
    return std::max(acc, v);
  case CUVIL_REDUCE_MIN:
    return std::min(acc, v);
  case CUVIL_REDUCE_PROD:
    return int64_t(uint64_t(acc) * uint64_t(v));
  default:
    return int64_t(uint64_t(acc) + uint64_t(v));
  }
}

} // namespace

Status evalReduce(const Tensor &x, const std::vector<int64_t> &axes, cuvil_reduce_op op,
                  Tensor &y) {
  ReduceSplit split = splitDims(x.shape(), axes);
  std::vector<int64_t> keptShape = staticDims(split.keptShape);
  std::vector<int64_t> keptStrides = staticDims(split.keptStrides);
  std::vector<int64_t> redShape = staticDims(split.redShape);
  std::vector<int64_t> redStrides = staticDims(split.redStrides);
  int64_t outputs = numElements(split.keptShape).constant();
  int64_t count = numElements(split.redShape).constant();
  for (int64_t out = 0; out < outputs; ++out) {
    int64_t base = 0, rest = out;
    for (int64_t d = int64_t(keptShape.size()) - 1; d >= 0; --d) {
      base += (rest % keptShape[size_t(d)]) * keptStrides[size_t(d)];
      rest /= keptShape[size_t(d)];
    }
    auto offsetOf = [&](int64_t r) {
      int64_t offset = base, remaining = r;
      for (int64_t d = int64_t(redShape.size()) - 1; d >= 0; --d) {
        offset += (remaining % redShape[size_t(d)]) * redStrides[size_t(d)];
        remaining /= redShape[size_t(d)];
      }
      return offset;
    };
    if (!isFloat(x.dtype())) { // setInt wraps an int32 result like the kernel's sum
      int64_t acc = initialInteger(op, x.dtype());
      for (int64_t r = 0; r < count; ++r)
        acc = stepInteger(op, acc, x.getInt(offsetOf(r)));
      y.setInt(out, acc);
      continue;
    }
    double acc = initial(op);
    for (int64_t r = 0; r < count; ++r)
      acc = step(op, acc, x.getDouble(offsetOf(r)));
    if (op == CUVIL_REDUCE_MEAN)
      acc /= double(count);
    if (op == CUVIL_REDUCE_L2)
      acc = std::sqrt(acc);
    y.setDouble(out, acc);
  }
  return Status::success();
}

std::vector<int64_t> spatialAxes(int64_t rank) {
  std::vector<int64_t> axes(size_t(std::max<int64_t>(rank - 2, 0)));
  std::iota(axes.begin(), axes.end(), 2);
  return axes;
}

Status inferGlobalPool(InferContext &ctx) {
  Shape out = ctx.inputShape(0);
  if (out.size() < 3)
    return ctx.error("input must be N-C-spatial");
  std::fill(out.begin() + 2, out.end(), 1);
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  return Status::success();
}

// Outputs per task of the kernel's vector path.
constexpr int64_t kReduceLanes = 16;

Status lowerReduce(const Value *x, const Value *y, const std::vector<int64_t> &axes,
                   cuvil_reduce_op op, LoweringContext &ctx) {
  DType dtype = x->type().dtype;
  const bool integerOp = op == CUVIL_REDUCE_MAX || op == CUVIL_REDUCE_MIN ||
                         op == CUVIL_REDUCE_SUM || op == CUVIL_REDUCE_PROD;
  const KernelRef *kernel = dtype == DType::F32                ? &kReduceKernel
                            : dtype == DType::F64              ? &kReduceF64Kernel
                            : dtype == DType::I32 && integerOp ? &kReduceI32Kernel
                            : dtype == DType::I64 && integerOp ? &kReduceI64Kernel
                                                               : nullptr;
  if (!kernel)
    return Status::error(fmt::format("element type {} is not supported", dtypeName(dtype)));
  ReduceSplit split = splitDims(x->type().shape, axes);
  if (split.keptShape.size() > CUVIL_MAX_RANK || split.redShape.size() > CUVIL_MAX_RANK)
    return Status::error("too many non-contiguous dimensions to reduce");
  ParamBlock<cuvil_reduce_params> params;
  // Right-aligned in the kernel's rank-6 arrays, the rest size 1, stride 0.
  auto place = [&](const std::vector<Dim> &values, int64_t fill, int64_t(&to)[CUVIL_MAX_RANK]) {
    size_t first = CUVIL_MAX_RANK - values.size();
    for (size_t d = 0; d < CUVIL_MAX_RANK; ++d)
      params.set(to[d], d < first ? Dim(fill) : values[d - first]);
  };
  params->op = op;
  place(split.keptShape, 1, params->kept_shape);
  place(split.keptStrides, 0, params->kept_strides);
  place(split.redShape, 1, params->reduced_shape);
  place(split.redStrides, 0, params->reduced_strides);
  params.set(params->count, numElements(split.redShape));
  // Outputs contiguous in x in runs of 16 (a global pool over blocked
  // channels) are reduced a vector at a time.
  bool innerVector = dtype == DType::F32 && !split.keptShape.empty() &&
                     split.keptStrides.back().is(1) &&
                     mod(split.keptShape.back(), kReduceLanes).is(0);
  params->inner_vector = innerVector ? 1 : 0;
  return ctx.callKernel(*kernel,
                        {KernelArg::pointer(x), KernelArg::pointer(y), KernelArg::params(params)},
                        floorDiv(y->type().numElements(), innerVector ? kReduceLanes : 1));
}

} // namespace cuvil::ops
