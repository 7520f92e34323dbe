#include "MatMulCommon.h"

namespace cuvil::ops {

Expected<MatMulGeometry> matMulGeometry(const Shape &a, const Shape &b) {
  if (a.empty() || b.empty())
    return Status::error("MatMul operands must have rank >= 1");
  Shape a2 = a.size() == 1 ? Shape{1, a[0]} : a;
  Shape b2 = b.size() == 1 ? Shape{b[0], 1} : b;
  MatMulGeometry g;
  g.M = a2[a2.size() - 2];
  g.K = a2.back();
  g.N = b2.back();
  if (b2[b2.size() - 2] != g.K)
    return Status::error(
        fmt::format("inner dimensions differ: [{}] x [{}]", shapeToString(a), shapeToString(b)));
  Shape aBatch(a2.begin(), a2.end() - 2), bBatch(b2.begin(), b2.end() - 2);
  Expected<Shape> batch = broadcastShapes(aBatch, bBatch);
  CUVIL_TRY(batch.status());
  g.batch = *batch;
  g.aBatchStrides = broadcastStrides(aBatch, g.batch);
  g.bBatchStrides = broadcastStrides(bBatch, g.batch);
  for (int64_t &stride : g.aBatchStrides)
    stride *= g.M * g.K;
  for (int64_t &stride : g.bBatchStrides)
    stride *= g.K * g.N;
  g.outShape = g.batch;
  if (a.size() > 1)
    g.outShape.push_back(g.M);
  if (b.size() > 1)
    g.outShape.push_back(g.N);
  return g;
}

Status inferMatMul(InferContext &ctx) {
  if (ctx.inputDType(0) != ctx.inputDType(1))
    return ctx.error("operand types differ: {} and {}", dtypeName(ctx.inputDType(0)),
                     dtypeName(ctx.inputDType(1)));
  Expected<MatMulGeometry> g = matMulGeometry(ctx.inputShape(0), ctx.inputShape(1));
  CUVIL_TRY(g.status());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), g->outShape});
  return Status::success();
}

Status evalMatMul(const Tensor &a, const Tensor &b, const Tensor *bias,
                  const FusedActivation &activation, Tensor &y) {
  Expected<MatMulGeometry> g = matMulGeometry(a.shape(), b.shape());
  CUVIL_TRY(g.status());
  int64_t batches = numElements(g->batch);
  std::vector<int64_t> batchIndex(g->batch.size(), 0);
  for (int64_t batch = 0; batch < batches; ++batch) {
    int64_t aBase = 0, bBase = 0;
    for (size_t d = 0; d < g->batch.size(); ++d) {
      aBase += batchIndex[d] * g->aBatchStrides[d];
      bBase += batchIndex[d] * g->bBatchStrides[d];
    }
    for (int64_t m = 0; m < g->M; ++m)
      for (int64_t n = 0; n < g->N; ++n) {
        double sum = bias ? bias->getDouble(n) : 0.0;
        for (int64_t k = 0; k < g->K; ++k)
          sum += a.getDouble(aBase + m * g->K + k) * b.getDouble(bBase + k * g->N + n);
        y.setDouble((batch * g->M + m) * g->N + n, applyActivation(activation, sum));
      }
    for (int64_t d = int64_t(g->batch.size()) - 1; d >= 0; --d) {
      if (++batchIndex[size_t(d)] < g->batch[size_t(d)])
        break;
      batchIndex[size_t(d)] = 0;
    }
  }
  return Status::success();
}

Status lowerMatMul(const Node &node, LoweringContext &ctx, const Value *bias,
                   const FusedActivation &activation) {
  const Value *a = node.input(0), *b = node.input(1);
  if (a->type().dtype != DType::F32)
    return Status::error(
        fmt::format("element type {} is not supported", dtypeName(a->type().dtype)));
  Expected<MatMulGeometry> g = matMulGeometry(a->type().shape, b->type().shape);
  CUVIL_TRY(g.status());
  // The kernel walks at most 4 batch dims; size-1 dims carry nothing.
  std::vector<int64_t> batch, aStrides, bStrides;
  for (size_t d = 0; d < g->batch.size(); ++d) {
    if (g->batch[d] == 1)
      continue;
    batch.push_back(g->batch[d]);
    aStrides.push_back(g->aBatchStrides[d]);
    bStrides.push_back(g->bBatchStrides[d]);
  }
  if (batch.size() > 4)
    return Status::error("more than 4 non-trivial batch dimensions");
  while (batch.size() < 4) {
    batch.insert(batch.begin(), 1);
    aStrides.insert(aStrides.begin(), 0);
    bStrides.insert(bStrides.begin(), 0);
  }
  std::vector<int64_t> params = batch;
  params.insert(params.end(), aStrides.begin(), aStrides.end());
  params.insert(params.end(), bStrides.begin(), bStrides.end());
  params.insert(params.end(), {g->M, g->N, g->K, activation.code});
  int64_t rowBlocks = (g->M + 3) / 4;
  ctx.callKernel("cuvil_matmul_f32",
                 {KernelArg::pointer(a), KernelArg::pointer(b), KernelArg::optionalPointer(bias),
                  KernelArg::pointer(node.output(0)), KernelArg::constantArray(params),
                  KernelArg::constantF32(activation.alpha),
                  KernelArg::constantF32(activation.beta)},
                 numElements(g->batch) * rowBlocks);
  return Status::success();
}

} // namespace cuvil::ops
