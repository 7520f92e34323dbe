#include "MatMulCommon.h"

namespace cuvil::ops {

Shape logicalB(const Node &node, const Shape &b) {
  if (node.getInt("b_packed", 0) && b.size() == 3)
    return {b[1], node.getInt("b_columns", 0)};
  return b;
}

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
  Expected<MatMulGeometry> g =
      matMulGeometry(ctx.inputShape(0), logicalB(ctx.node(), ctx.inputShape(1)));
  CUVIL_TRY(g.status());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), g->outShape});
  return Status::success();
}

Status evalMatMul(const Node &node, std::span<const Tensor *const> in,
                  const FusedActivation &activation, Tensor &y) {
  const Tensor &a = *in[0], &b = *in[1];
  const Tensor *bias = in.size() > 2 ? in[2] : nullptr;
  const Tensor *residual = in.size() > 3 ? in[3] : nullptr;
  bool packed = node.getInt("b_packed", 0) != 0;
  double scale = node.getFloat("scale", 1.0f);
  Expected<MatMulGeometry> g = matMulGeometry(a.shape(), logicalB(node, b.shape()));
  CUVIL_TRY(g.status());
  auto bAt = [&](int64_t base, int64_t k, int64_t n) {
    if (packed)
      return b.getDouble(((n / kGemmPanel) * g->K + k) * kGemmPanel + n % kGemmPanel);
    return b.getDouble(base + k * g->N + n);
  };
  std::vector<int64_t> residualStrides;
  if (residual)
    residualStrides = broadcastStrides(residual->shape(), y.shape());
  std::vector<int64_t> yStrides = contiguousStrides(y.shape());
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
        double sum = 0;
        for (int64_t k = 0; k < g->K; ++k)
          sum += a.getDouble(aBase + m * g->K + k) * bAt(bBase, k, n);
        sum = sum * scale + (bias ? bias->getDouble(n) : 0.0);
        int64_t flat = (batch * g->M + m) * g->N + n;
        if (residual) {
          int64_t offset = 0, rest = flat;
          for (int64_t d = int64_t(yStrides.size()) - 1; d >= 0; --d) {
            offset += (rest % y.shape()[size_t(d)]) * residualStrides[size_t(d)];
            rest /= y.shape()[size_t(d)];
          }
          sum += residual->getDouble(offset);
        }
        y.setDouble(flat, applyActivation(activation, sum));
      }
    for (int64_t d = int64_t(g->batch.size()) - 1; d >= 0; --d) {
      if (++batchIndex[size_t(d)] < g->batch[size_t(d)])
        break;
      batchIndex[size_t(d)] = 0;
    }
  }
  return Status::success();
}

Status lowerMatMul(const Node &node, LoweringContext &ctx, const MatMulEpilogue &epilogue) {
  const Value *a = node.input(0), *b = node.input(1);
  if (a->type().dtype != DType::F32)
    return Status::error(
        fmt::format("element type {} is not supported", dtypeName(a->type().dtype)));
  bool packed = node.getInt("b_packed", 0) != 0;
  Expected<MatMulGeometry> g = matMulGeometry(a->type().shape, logicalB(node, b->type().shape));
  CUVIL_TRY(g.status());
  const Shape &out = node.output(0)->type().shape;
  // Residual strides over the output's dims: last 1, row N or 0, batch any.
  std::vector<int64_t> rStrides(out.size(), 0);
  int64_t rowStride = 0;
  if (epilogue.residual) {
    rStrides = broadcastStrides(epilogue.residual->type().shape, out);
    bool rowAndColumn = out.size() >= 2 && g->outShape.size() == g->batch.size() + 2;
    if (!rowAndColumn || rStrides.back() != 1)
      return Status::error("the residual must vary along the output's columns");
    rowStride = rStrides[out.size() - 2];
  }
  // The kernel walks at most 4 batch dims; size-1 dims carry nothing.
  std::vector<int64_t> batch, aStrides, bStrides, residualStrides;
  for (size_t d = 0; d < g->batch.size(); ++d) {
    if (g->batch[d] == 1)
      continue;
    batch.push_back(g->batch[d]);
    aStrides.push_back(g->aBatchStrides[d]);
    bStrides.push_back(packed ? 0 : g->bBatchStrides[d]);
    residualStrides.push_back(epilogue.residual ? rStrides[d] : 0);
  }
  if (batch.size() > 4)
    return Status::error("more than 4 non-trivial batch dimensions");
  auto padTo4 = [](std::vector<int64_t> v, int64_t fill) {
    v.insert(v.begin(), 4 - v.size(), fill);
    return v;
  };
  std::vector<int64_t> params = padTo4(batch, 1);
  for (const auto &strides : {aStrides, bStrides, residualStrides}) {
    std::vector<int64_t> padded = padTo4(strides, 0);
    params.insert(params.end(), padded.begin(), padded.end());
  }
  // 6 x 4 vectors of accumulators on AVX-512; a 16-lane vector takes two
  // registers on AVX2, where 2 x 2 keeps the tile in its 16.
  bool wide = ctx.vectorLanes() >= 16;
  int64_t rowTile = std::min<int64_t>(wide ? 6 : 2, g->M), columnVectors = wide ? 4 : 2;
  params.insert(params.end(),
                {g->M, g->N, g->K, /*lda=*/g->K, /*bK=*/g->N, /*bN=*/1, packed ? 1 : 0, rowTile,
                 epilogue.activation.code, rowStride, columnVectors});
  int64_t panels = (g->N + kGemmPanel - 1) / kGemmPanel;
  ctx.callKernel("cuvil_gemm_f32",
                 {KernelArg::pointer(a), KernelArg::pointer(b),
                  KernelArg::optionalPointer(epilogue.bias),
                  KernelArg::optionalPointer(epilogue.residual), KernelArg::pointer(node.output(0)),
                  KernelArg::constantArray(params), KernelArg::constantF32(epilogue.scale),
                  KernelArg::constantF32(epilogue.activation.alpha),
                  KernelArg::constantF32(epilogue.activation.beta)},
                 numElements(g->batch) * panels);
  return Status::success();
}

} // namespace cuvil::ops
