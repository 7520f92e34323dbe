// cuvil.PackConvWeights: a convolution's weights [M, C/group, KH, KW] in the
// order the blocked NCHWc kernels read them (block K = `block` channels,
// zero padded to whole blocks), by `layout`:
//   dense      [OCB, ICB, KH, KW, K (ic), K (oc)]
//   plain      [OCB, C,   KH, KW, K (oc)]           (a plain, unblocked input)
//   depthwise  [CB,       KH, KW, K]                (one filter per channel)
//   grouped    [OCB, window, KH, KW, K (ic), K (oc)] (`group` groups: each
//              output block's window of input blocks, zero across groups)
// Made by layout-nchwc on constant weights and folded there: it has no
// kernel.
#include "ChannelBlock.h"
#include "OpSupport.h"
#include "cuvil/kernels/Conv.h"

namespace cuvil::ops {
namespace {

int64_t blocksOf(int64_t channels, int64_t K) { return (channels + K - 1) / K; }
Dim blocksOf(const Dim &channels, int64_t K) { return ceilDiv(channels, K); }

Expected<Shape> packedShape(const Node &node, const Shape &w) {
  int64_t K = node.getInt("block", 0);
  std::string layout = node.getString("layout", "");
  if (w.size() != 4 || !isChannelBlock(K))
    return Status::error(fmt::format("W [{}] with block {} cannot be packed", shapeToString(w), K));
  const Dim &M = w[0], &C = w[1], &KH = w[2], &KW = w[3];
  Dim OCB = blocksOf(M, K);
  if (layout == "depthwise" && C.is(1))
    return Shape{OCB, KH, KW, K};
  if (layout == "plain")
    return Shape{OCB, C, KH, KW, K};
  if (layout == "dense")
    return Shape{OCB, blocksOf(C, K), KH, KW, K, K};
  int64_t groups = node.getInt("group", 1);
  if (layout == "grouped" && groups > 1 && M.isConstant() && C.isConstant() &&
      M.constant() % groups == 0)
    return Shape{
        OCB, groupedWindowBlocks(C.constant(), M.constant() / groups, groups, K), KH, KW, K, K};
  return Status::error(fmt::format("unknown packing '{}' for W [{}]", layout, shapeToString(w)));
}

Status infer(InferContext &ctx) {
  if (ctx.inputDType(0) != DType::F32)
    return ctx.error("packs f32 weights");
  Expected<Shape> shape = packedShape(ctx.node(), ctx.inputShape(0));
  CUVIL_TRY(shape.status());
  ctx.setOutput(0, TensorType{DType::F32, *shape});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const std::vector<int64_t> s = in[0]->dims();
  const int64_t M = s[0], C = s[1], KH = s[2], KW = s[3], K = node.getInt("block", 0);
  const std::string layout = node.getString("layout", "");
  const int64_t groups = layout == "grouped" ? node.getInt("group", 1) : 1;
  const int64_t Mg = M / groups, ICB = blocksOf(C * groups, K);
  const int64_t window = out[0].dims()[1];
  const float *src = in[0]->data<float>();
  float *dst = out[0].mutableData<float>(); // zero: the padding channels
  for (int64_t m = 0; m < M; ++m)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t kw = 0; kw < KW; ++kw) {
          float value = src[((m * C + c) * KH + kh) * KW + kw];
          int64_t ob = m / K, o = m % K;
          if (layout == "depthwise")
            dst[((ob * KH + kh) * KW + kw) * K + o] = value;
          else if (layout == "plain")
            dst[(((ob * C + c) * KH + kh) * KW + kw) * K + o] = value;
          else if (layout == "grouped") {
            int64_t ic = m / Mg * C + c;
            int64_t slot = ic / K - cuvil_conv_window_start(ob, K, C, Mg, ICB, window);
            dst[((((ob * window + slot) * KH + kh) * KW + kw) * K + ic % K) * K + o] = value;
          } else
            dst[((((ob * ICB + c / K) * KH + kh) * KW + kw) * K + c % K) * K + o] = value;
        }
  return Status::success();
}

} // namespace

extern const OpDefinition kPackConvWeightsOp = {
    OpSchema{"cuvil.PackConvWeights",
             1,
             1,
             1,
             1,
             {{"block", AttrKind::Int}, {"group", AttrKind::Int}, {"layout", AttrKind::String}},
             infer,
             eval},
    lowerCompileTimeOnly};

} // namespace cuvil::ops
