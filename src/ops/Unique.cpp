// Unique: the distinct slices of the input along `axis` (without one, its
// distinct elements), ascending when `sorted` (the default) or by first
// occurrence; with each one's first index, the group of every input slice
// and how often each occurs. The count comes from the data: a symbol in
// [0, n] the kernel writes at run time (a number when the input is a
// constant and the node folds). The kernel sorts in the `counts` result, so
// canonicalize gives a Unique all four results before lowering.
#include "OpSupport.h"
#include "cuvil/kernels/Select.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace cuvil::ops {
namespace {

bool supported(DType dtype) { return dtype != DType::F16 && dtype != DType::BF16; }

// The reference's view of the constant input: slices compared as the kernel
// compares them (NaN equals NaN, above every number).
struct Slices {
  const Tensor &x;
  int64_t outer, n, inner;

  double at(int64_t o, int64_t a, int64_t i) const { return x.getDouble((o * n + a) * inner + i); }
  int compare(int64_t a, int64_t b) const {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        double u = at(o, a, i), v = at(o, b, i);
        if (std::isnan(u) || std::isnan(v)) {
          if (std::isnan(u) != std::isnan(v))
            return std::isnan(u) ? 1 : -1;
          continue;
        }
        if (u != v)
          return u < v ? -1 : 1;
      }
    return 0;
  }
};

// Each group's first index, in output order, and every slice's group.
struct Groups {
  std::vector<int64_t> first, inverse, counts;
};

Groups group(const Slices &s, bool sorted) {
  std::vector<int64_t> order(size_t(s.n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return s.compare(a, b) < 0; });
  Groups g;
  g.inverse.assign(size_t(s.n), -1);
  std::vector<int64_t> firstOf(size_t(s.n)); // slice -> its group's first index
  for (size_t j = 0; j < order.size(); ++j) {
    bool opens = j == 0 || s.compare(order[j - 1], order[j]) != 0;
    firstOf[size_t(order[j])] = opens ? order[j] : firstOf[size_t(order[j - 1])];
    if (opens && sorted)
      g.first.push_back(order[j]);
  }
  if (!sorted)
    for (int64_t a = 0; a < s.n; ++a)
      if (firstOf[size_t(a)] == a)
        g.first.push_back(a);
  std::vector<int64_t> groupOf(size_t(s.n), -1); // first index -> group
  for (size_t k = 0; k < g.first.size(); ++k)
    groupOf[size_t(g.first[k])] = int64_t(k);
  g.counts.assign(g.first.size(), 0);
  for (int64_t a = 0; a < s.n; ++a) {
    g.inverse[size_t(a)] = groupOf[size_t(firstOf[size_t(a)])];
    ++g.counts[size_t(g.inverse[size_t(a)])];
  }
  return g;
}

Shape resultShape(const AxisSplit &g, const Shape &x, const Dim &count) {
  if (!g.axis)
    return {count};
  Shape out = x;
  out[size_t(*g.axis)] = count;
  return out;
}

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  DType dtype = ctx.inputDType(0);
  if (!supported(dtype))
    return ctx.error("element type {} is not supported", dtypeName(dtype));
  Expected<AxisSplit> g = splitAtOptionalAxis(ctx.node(), x);
  CUVIL_TRY(g.status());
  Dim count;
  if (const Tensor *data = ctx.constantInput(0)) {
    Slices s{*data, g->outer.constant(), g->axisDim.constant(), g->inner.constant()};
    count = int64_t(group(s, ctx.node().getInt("sorted") != 0).first.size());
  } else {
    count = ctx.dataSymbol("count", g->axisDim.max());
  }
  const TensorType results[] = {{dtype, resultShape(*g, x, count)},
                                {DType::I64, {count}},
                                {DType::I64, {g->axisDim}},
                                {DType::I64, {count}}};
  for (size_t i = 0; i < ctx.node().numOutputs(); ++i)
    ctx.setOutput(i, results[i]);
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  AxisSplit geo = *splitAtOptionalAxis(node, x.shape());
  Slices s{x, geo.outer.constant(), geo.axisDim.constant(), geo.inner.constant()};
  Groups g = group(s, node.getInt("sorted") != 0);
  int64_t count = int64_t(g.first.size());
  size_t slice = size_t(s.inner) * dtypeSize(x.dtype());
  uint8_t *y = out[0].mutableBytes();
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t k = 0; k < count; ++k)
      std::memcpy(y + size_t(o * count + k) * slice,
                  x.bytes() + size_t(o * s.n + g.first[size_t(k)]) * slice, slice);
  const std::vector<int64_t> *lists[] = {&g.first, &g.inverse, &g.counts};
  for (size_t i = 1; i < out.size(); ++i)
    out[i] = Tensor::fromInt64s(*lists[i - 1], out[i].shape());
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  Expected<AxisSplit> g = splitAtOptionalAxis(node, x->type().shape);
  CUVIL_TRY(g.status());
  if (node.numOutputs() != 4)
    return Status::error("internal error: a Unique reaches lowering without its four results");
  std::optional<SymbolId> count = node.output(1)->type().shape[0].asSymbol();
  if (!count)
    return Status::error("internal error: a Unique that is not folded has a count from data");
  Expected<const KernelRef *> kernel = uniqueKernel(x->type().dtype);
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_unique_params> params;
  params.set(params->outer, g->outer);
  params.set(params->n, g->axisDim);
  params.set(params->inner, g->inner);
  params->sorted = node.getInt("sorted") != 0;
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(x), KernelArg::pointer(node.output(0)),
                         KernelArg::pointer(node.output(1)), KernelArg::pointer(node.output(2)),
                         KernelArg::pointer(node.output(3)), KernelArg::symbol(*count),
                         KernelArg::params(params)},
                        1);
}

} // namespace

extern const OpDefinition kUniqueOp = {
    OpSchema{"Unique",
             1,
             1,
             1,
             4,
             {{"axis", AttrKind::Int}, {"sorted", AttrKind::Int, Attribute(int64_t(1))}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
