// Gemm: y = alpha * A' . B' + beta * C, A' = transA ? A^T : A (same for B),
// C unidirectionally broadcast to [M, N]. Canonicalisation rewrites it into
// MatMul/Transpose/Mul/Add, so it has no lowering of its own.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

struct GemmShape {
  Dim M, N, K;
};

Expected<GemmShape> gemmShape(const Node &node, const Shape &a, const Shape &b) {
  if (a.size() != 2 || b.size() != 2)
    return Status::error("A and B must be matrices");
  bool transA = node.getInt("transA"), transB = node.getInt("transB");
  GemmShape s{transA ? a[1] : a[0], transB ? b[0] : b[1], transA ? a[0] : a[1]};
  if ((transB ? b[1] : b[0]) != s.K)
    return Status::error(
        fmt::format("inner dimensions differ: [{}] x [{}]", shapeToString(a), shapeToString(b)));
  return s;
}

Status infer(InferContext &ctx) {
  Expected<GemmShape> s = gemmShape(ctx.node(), ctx.inputShape(0), ctx.inputShape(1));
  CUVIL_TRY(s.status());
  Shape out = {s->M, s->N};
  if (ctx.hasInput(2)) {
    Expected<Shape> broadcast = broadcastShapes(ctx.inputShape(2), out);
    if (!broadcast || *broadcast != out)
      return ctx.error("C [{}] does not broadcast to [{}]", shapeToString(ctx.inputShape(2)),
                       shapeToString(out));
  }
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &a = *in[0], &b = *in[1];
  GemmShape s = *gemmShape(node, a.shape(), b.shape());
  const int64_t M = s.M.constant(), N = s.N.constant(), K = s.K.constant();
  bool transA = node.getInt("transA"), transB = node.getInt("transB");
  double alpha = node.getFloat("alpha"), beta = node.getFloat("beta");
  std::vector<int64_t> cStrides;
  if (in.size() > 2 && in[2])
    cStrides = staticBroadcastStrides(in[2]->shape(), {M, N});
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double sum = 0;
      for (int64_t k = 0; k < K; ++k)
        sum += a.getDouble(transA ? k * M + m : m * K + k) *
               b.getDouble(transB ? n * K + k : k * N + n);
      double c = cStrides.empty() ? 0.0 : in[2]->getDouble(m * cStrides[0] + n * cStrides[1]);
      out[0].setDouble(m * N + n, alpha * sum + beta * c);
    }
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: Gemm should have been canonicalised");
}

} // namespace

extern const OpDefinition kGemmOp = {OpSchema{"Gemm",
                                              2,
                                              3,
                                              1,
                                              1,
                                              {{"alpha", AttrKind::Float, 1.0f},
                                               {"beta", AttrKind::Float, 1.0f},
                                               {"transA", AttrKind::Int, int64_t(0)},
                                               {"transB", AttrKind::Int, int64_t(0)}},
                                              infer,
                                              eval},
                                     lower};

} // namespace cuvil::ops
