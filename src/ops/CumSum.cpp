// CumSum: running sums along `axis` (the one-element second input, known at
// compile time), inclusive or `exclusive`, forward or `reverse`, accumulated
// in the element type in scan order (as ONNX Runtime does).
#include "OpSupport.h"
#include "cuvil/kernels/Reduce.h"

namespace cuvil::ops {
namespace {

// x split at the one-element axis input.
Expected<AxisSplit> geometry(const Node &node, const Shape &shape) {
  Expected<std::vector<int64_t>> axis = constantInts(node, 1, "axis");
  CUVIL_TRY(axis.status());
  if (axis->size() != 1)
    return Status::error(fmt::format("axis must have one element, has {}", axis->size()));
  return splitAtAxis(shape, (*axis)[0]);
}

bool supported(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::I32 || dtype == DType::I64 ||
         dtype == DType::U32 || dtype == DType::U64;
}

Status infer(InferContext &ctx) {
  if (!supported(ctx.inputDType(0)))
    return ctx.error("element type {} is not supported", dtypeName(ctx.inputDType(0)));
  CUVIL_TRY(geometry(ctx.node(), ctx.inputShape(0)).status());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), ctx.inputShape(0)});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  AxisSplit g = *geometry(node, x.shape());
  int64_t outer = g.outer.constant(), n = g.axisDim.constant(), inner = g.inner.constant();
  bool exclusive = node.getInt("exclusive") != 0, reverse = node.getInt("reverse") != 0;
  bool integral = x.dtype() != DType::F32 && x.dtype() != DType::F64;
  bool single = x.dtype() == DType::F32;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double sum = 0; // rounded to f32 after each step for f32
      int64_t isum = 0;
      auto add = [&](int64_t at) {
        if (integral)
          isum += x.getInt(at);
        else
          sum = single ? double(float(sum + x.getDouble(at))) : sum + x.getDouble(at);
      };
      for (int64_t step = 0; step < n; ++step) {
        int64_t at = (o * n + (reverse ? n - 1 - step : step)) * inner + i;
        if (!exclusive)
          add(at);
        if (integral)
          out[0].setInt(at, isum);
        else
          out[0].setDouble(at, sum);
        if (exclusive)
          add(at);
      }
    }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  Expected<AxisSplit> g = geometry(node, x->type().shape);
  CUVIL_TRY(g.status());
  Expected<const KernelRef *> kernel = cumSumKernel(x->type().dtype);
  CUVIL_TRY(kernel.status());
  ParamBlock<cuvil_cumsum_params> params;
  params.set(params->axis_dim, g->axisDim);
  params.set(params->inner, g->inner);
  params->exclusive = node.getInt("exclusive") != 0;
  params->reverse = node.getInt("reverse") != 0;
  return ctx.callKernel(
      **kernel,
      {KernelArg::pointer(x), KernelArg::pointer(node.output(0)), KernelArg::params(params)},
      g->outer);
}

} // namespace

extern const OpDefinition kCumSumOp = {
    OpSchema{"CumSum",
             2,
             2,
             1,
             1,
             {{"exclusive", AttrKind::Int, Attribute(int64_t(0))},
              {"reverse", AttrKind::Int, Attribute(int64_t(0))}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
