// ConvTranspose: the gradient of Conv with respect to its input, 1-D, 2-D
// and 3-D, with groups, strides, dilations, pads, output_padding, output_shape
// and auto_pad; W is [C, OC/group, kernel...], optional B [OC].
// canonicalize rewrites it into a GEMM and a col2im scatter
// (cuvil.ConvTransposeCol2Im), so it has no lowering of its own; the
// reference below folds constant ones.
#include "ConvTransposeCommon.h"

namespace cuvil::ops {
namespace {

Expected<ConvTransposeGeometry> geometry(const Node &node, const Shape &x, const Shape &w) {
  if (w.size() != x.size() || w.size() < 3 || !isStatic(w))
    return Status::error(fmt::format("W [{}] must be a static [C, OC/group, kernel...] tensor "
                                     "of X's rank {}",
                                     shapeToString(w), x.size()));
  std::vector<int64_t> kernel = staticDims(std::span(w).subspan(2));
  int64_t group = node.getInt("group");
  Expected<ConvTransposeGeometry> g =
      convTransposeGeometry(node, x, w[1].constant() * std::max<int64_t>(group, 1), kernel);
  CUVIL_TRY(g.status());
  if (!(w[0] == x[1]))
    return Status::error(fmt::format("W has {} input channels, X has {}", w[0], x[1]));
  return g;
}

Status infer(InferContext &ctx) {
  if (ctx.inputDType(0) != DType::F32)
    return ctx.error("element type {} is not supported", dtypeName(ctx.inputDType(0)));
  const Shape &x = ctx.inputShape(0);
  Expected<ConvTransposeGeometry> g = geometry(ctx.node(), x, ctx.inputShape(1));
  CUVIL_TRY(g.status());
  if (ctx.hasInput(2) && ctx.inputShape(2) != Shape{Dim(g->outChannels)})
    return ctx.error("bias has shape [{}], expected [{}]", shapeToString(ctx.inputShape(2)),
                     g->outChannels);
  Shape out = {x[0], Dim(g->outChannels)};
  out.insert(out.end(), g->output.begin(), g->output.end());
  ctx.setOutput(0, TensorType{DType::F32, out});
  return Status::success();
}

// y[n, oc, o] = b[oc] + sum over c in oc's group, k: x[n, c, i] w[c, oc', k]
// where o = i * stride - pad + k * dilation (per axis).
Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0], &w = *in[1];
  ConvTransposeGeometry g = *geometry(node, x.shape(), w.shape());
  int64_t N = x.dim(0), C = g.inChannels, OC = g.outChannels, Cg = C / g.group, OCg = OC / g.group;
  std::vector<int64_t> input = staticDims(g.input), output = staticDims(g.output);
  int64_t inVolume = product(input), outVolume = product(output), taps = product(g.kernel);
  Tensor &y = out[0];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oc = 0; oc < OC; ++oc) {
      int64_t group = oc / OCg, o = oc % OCg;
      std::vector<double> volume(size_t(outVolume),
                                 in.size() > 2 && in[2] ? in[2]->getDouble(oc) : 0);
      for (int64_t c = group * Cg; c < (group + 1) * Cg; ++c) {
        int64_t xi = (n * C + c) * inVolume;
        forEachIndex(input, [&](const std::vector<int64_t> &i) {
          double v = x.getDouble(xi++);
          int64_t wi = (c * OCg + o) * taps;
          forEachIndex(g.kernel, [&](const std::vector<int64_t> &k) {
            int64_t offset = 0;
            for (size_t d = 0; d < input.size() && offset >= 0; ++d) {
              int64_t at = i[d] * g.strides[d] - g.padsBegin[d] + k[d] * g.dilations[d];
              offset = at >= 0 && at < output[d] ? offset * output[d] + at : -1;
            }
            if (offset >= 0)
              volume[size_t(offset)] += v * w.getDouble(wi);
            ++wi;
          });
        });
      }
      for (int64_t i = 0; i < outVolume; ++i)
        y.setDouble((n * OC + oc) * outVolume + i, volume[size_t(i)]);
    }
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize rewrites every ConvTranspose");
}

} // namespace

extern const OpDefinition kConvTransposeOp = {
    OpSchema{"ConvTranspose", 2, 3, 1, 1, convTransposeAttributes(), infer, eval}, lower};

} // namespace cuvil::ops
