// TopK: the k largest (or smallest) elements along `axis` and their indices
// (i64), best first, ties by the smaller index. k is the one-element K input
// (the attribute before opset 10, which the importer turns into it): a
// constant, a dim a shape computation gives, or a --value-range symbol, so
// the results' extent along the axis may be known only at run time; a k
// beyond the axis is refused then (at compile time when it must be).
#include "OpSupport.h"
#include "cuvil/kernels/Reduce.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace cuvil::ops {
namespace {

struct TopKGeometry {
  int64_t axis;
  Dim outer, axisDim, inner, k;
};

Expected<TopKGeometry> geometry(const Node &node, const Shape &shape) {
  if (shape.empty())
    return Status::error("expects a tensor of rank 1 or more");
  Expected<int64_t> axis = normalizeAxis(node.getInt("axis", -1), int64_t(shape.size()));
  CUVIL_TRY(axis.status());
  Expected<std::vector<Dim>> k = dimsInput(node, 1, "k");
  CUVIL_TRY(k.status());
  if (k->size() != 1)
    return Status::error(fmt::format("K must have one element, has {}", k->size()));
  const Dim &axisDim = shape[size_t(*axis)];
  if ((*k)[0].max() < 0)
    return Status::error(fmt::format("k is {}; it must not be negative", (*k)[0]));
  if ((*k)[0].min() > axisDim.max())
    return Status::error(
        fmt::format("k is {}, but axis {} has only {} elements", (*k)[0], *axis, axisDim));
  std::span<const Dim> dims(shape);
  return TopKGeometry{*axis, numElements(dims.first(size_t(*axis))), axisDim,
                      numElements(dims.subspan(size_t(*axis) + 1)), (*k)[0]};
}

Status infer(InferContext &ctx) {
  if (ctx.inputDType(0) == DType::Bool || ctx.inputDType(0) == DType::F16 ||
      ctx.inputDType(0) == DType::BF16)
    return ctx.error("element type {} is not supported", dtypeName(ctx.inputDType(0)));
  Expected<TopKGeometry> g = geometry(ctx.node(), ctx.inputShape(0));
  CUVIL_TRY(g.status());
  Shape out = ctx.inputShape(0);
  out[size_t(g->axis)] = g->k;
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  ctx.setOutput(1, TensorType{DType::I64, out});
  return Status::success();
}

// Whether (v, a) ranks before (w, b): the kernel's order.
bool beats(double v, int64_t a, double w, int64_t b, bool largest) {
  if (std::isnan(v) || std::isnan(w))
    return std::isnan(v) && std::isnan(w) ? a < b : (largest ? std::isnan(v) : std::isnan(w));
  if (v != w)
    return largest ? v > w : v < w;
  return a < b;
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  TopKGeometry g = *geometry(node, x.shape());
  int64_t outer = g.outer.constant(), axisDim = g.axisDim.constant(), inner = g.inner.constant(),
          k = g.k.constant();
  bool largest = node.getInt("largest", 1) != 0;
  size_t size = dtypeSize(x.dtype());
  std::vector<int64_t> order(static_cast<size_t>(axisDim));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t a) { return (o * axisDim + a) * inner + i; };
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return beats(x.getDouble(at(a)), a, x.getDouble(at(b)), b, largest);
      });
      for (int64_t j = 0; j < k; ++j) {
        int64_t to = (o * k + j) * inner + i;
        std::memcpy(out[0].mutableBytes() + to * int64_t(size),
                    x.bytes() + at(order[size_t(j)]) * int64_t(size), size);
        out[1].setInt(to, order[size_t(j)]);
      }
    }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  TopKGeometry g = *geometry(node, x->type().shape);
  Expected<const KernelRef *> kernel = topKKernel(x->type().dtype);
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_topk_params> params;
  params.set(params->axis_dim, g.axisDim);
  params.set(params->inner, g.inner);
  params.set(params->k, g.k);
  params->largest = node.getInt("largest", 1) != 0;
  return ctx.callKernel(
      **kernel,
      {KernelArg::pointer(x), KernelArg::pointer(node.output(0)),
       KernelArg::pointer(node.output(1)),
       KernelArg::error({fmt::format("k is {{}}, but axis {} has {} elements", g.axis, g.axisDim)}),
       KernelArg::params(params)},
      g.outer * g.inner);
}

} // namespace

extern const OpDefinition kTopKOp = {OpSchema{"TopK",
                                              2,
                                              2,
                                              2,
                                              2,
                                              {{"axis", AttrKind::Int, Attribute(int64_t(-1))},
                                               {"largest", AttrKind::Int, Attribute(int64_t(1))},
                                               {"sorted", AttrKind::Int, Attribute(int64_t(1))}},
                                              infer,
                                              eval},
                                     lower};

} // namespace cuvil::ops
