// cuvil.WinogradWeights: 3x3 convolution weights [M, C, 3, 3] transformed
// for Winograd F(4x4, 3x3), U = G g G^T per (oc, ic), in double precision,
// laid out [36][OCB][ICB][K (ic)][K (oc)] for blocks of K = `block`
// channels (zero padded), as cuvil.ConvWinograd reads them. Made by
// layout-nchwc on constant weights and folded there: it has no kernel.
#include "ChannelBlock.h"
#include "OpSupport.h"
#include "WinogradMatrices.h"

namespace cuvil::ops {
namespace {

using winograd::kG;

int64_t blocksOf(int64_t channels, int64_t K) { return (channels + K - 1) / K; }
Dim blocksOf(const Dim &channels, int64_t K) { return ceilDiv(channels, K); }

Status infer(InferContext &ctx) {
  const Shape &w = ctx.inputShape(0);
  int64_t K = ctx.node().getInt("block", 0);
  if (ctx.inputDType(0) != DType::F32 || w.size() != 4 || !w[2].is(3) || !w[3].is(3) ||
      !isChannelBlock(K))
    return ctx.error("W [{}] with block {} is not a 3x3 f32 filter bank to transform",
                     shapeToString(w), K);
  ctx.setOutput(0, TensorType{DType::F32, {36, blocksOf(w[0], K), blocksOf(w[1], K), K, K}});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const std::vector<int64_t> s = in[0]->dims();
  int64_t M = s[0], C = s[1], K = node.getInt("block", 0);
  int64_t OCB = blocksOf(M, K), ICB = blocksOf(C, K);
  const float *g = in[0]->data<float>();
  float *dst = out[0].mutableData<float>(); // zero: the padding channels
  for (int64_t m = 0; m < M; ++m)
    for (int64_t c = 0; c < C; ++c) {
      const float *k = g + (m * C + c) * 9;
      double t[6][3] = {}; // G g
      for (int r = 0; r < 6; ++r)
        for (int j = 0; j < 3; ++j)
          for (int a = 0; a < 3; ++a)
            t[r][j] += kG[size_t(r)][size_t(a)] * k[a * 3 + j];
      for (int r = 0; r < 6; ++r)
        for (int col = 0; col < 6; ++col) {
          double value = 0;
          for (int b = 0; b < 3; ++b)
            value += t[r][b] * kG[size_t(col)][size_t(b)];
          int64_t xi = r * 6 + col;
          dst[((((xi * OCB + m / K) * ICB + c / K) * K + c % K) * K) + m % K] = float(value);
        }
    }
  return Status::success();
}

} // namespace

extern const OpDefinition kWinogradWeightsOp = {
    OpSchema{"cuvil.WinogradWeights", 1, 1, 1, 1, {{"block", AttrKind::Int}}, infer, eval},
    lowerCompileTimeOnly};

} // namespace cuvil::ops
