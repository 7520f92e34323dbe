// LRN: local response normalisation across channels of x [N, C, D...]:
//   y = x / (bias + alpha / size * sum of x^2 over the channels
//            [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)])^beta
// (the window clipped to [0, C)). f32, as ONNX Runtime takes.
#include "OpSupport.h"
#include "cuvil/kernels/Normalization.h"

#include <cmath>

namespace cuvil::ops {
namespace {

struct Window {
  int64_t before, after;
};

Expected<Window> window(const Node &node) {
  int64_t size = node.getInt("size");
  if (size < 1)
    return Status::error(fmt::format("size is {}; it must be positive", size));
  return Window{(size - 1) / 2, size / 2};
}

Status infer(InferContext &ctx) {
  if (ctx.inputDType(0) != DType::F32)
    return ctx.error("element type {} is not supported (f32 is)", dtypeName(ctx.inputDType(0)));
  if (ctx.inputShape(0).size() < 3)
    return ctx.error("input must be N-C-spatial (rank 3 or more), has rank {}",
                     ctx.inputShape(0).size());
  CUVIL_TRY(window(ctx.node()).status());
  ctx.setOutput(0, ctx.inputType(0));
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  Window w = *window(node);
  int64_t N = x.dim(0), C = x.dim(1), S = x.numElements() / std::max<int64_t>(N * C, 1);
  double scale = double(node.getFloat("alpha")) / double(node.getInt("size"));
  double beta = node.getFloat("beta"), bias = node.getFloat("bias");
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t s = 0; s < S; ++s) {
        double sum = 0;
        for (int64_t k = std::max<int64_t>(0, c - w.before); k <= std::min(C - 1, c + w.after); ++k)
          sum += x.getDouble((n * C + k) * S + s) * x.getDouble((n * C + k) * S + s);
        int64_t at = (n * C + c) * S + s;
        out[0].setDouble(at, x.getDouble(at) / std::pow(bias + scale * sum, beta));
      }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  const Shape &shape = x->type().shape;
  Window w = *window(node);
  ParamBlock<cuvil_lrn_params> params;
  params.set(params->channels, shape[1]);
  params.set(params->spatial, numElements(std::span(shape).subspan(2)));
  params->before = w.before;
  params->after = w.after;
  params->scale = node.getFloat("alpha") / float(node.getInt("size"));
  params->beta = node.getFloat("beta");
  params->bias = node.getFloat("bias");
  return ctx.callKernel(
      kLrnKernel,
      {KernelArg::pointer(x), KernelArg::pointer(node.output(0)), KernelArg::params(params)},
      shape[0] * shape[1]);
}

} // namespace

extern const OpDefinition kLRNOp = {
    OpSchema{"LRN",
             1,
             1,
             1,
             1,
             {{"alpha", AttrKind::Float, Attribute(1e-4f)},
              {"beta", AttrKind::Float, Attribute(0.75f)},
              {"bias", AttrKind::Float, Attribute(1.0f)},
              {"size", AttrKind::Int, std::nullopt, /*required=*/true}},
             infer,
             eval},
    lower};

} // namespace cuvil::ops
