#include "MatMulCommon.h"

#include <algorithm>
#include <limits>

namespace cuvil::ops {

// K rows per chunk: the largest power of two whose panel chunk (64 floats a
// row) fills no more than two thirds of L1, beside the A rows and C tiles
// streaming through it.
int64_t chooseChunkK(const CpuModel &cpu) {
  int64_t rows = cpu.l1Bytes * 2 / 3 / (CUVIL_GEMM_PANEL * int64_t(sizeof(float)));
  int64_t chunk = 1;
  while (chunk * 2 <= std::min<int64_t>(rows, CUVIL_GEMM_MAX_CHUNK_K))
    chunk *= 2;
  return chunk;
}

// Rows of A per GEMM task and panels per group. A thread runs every
// 64-column panel of B over its block of rows of A, in groups of panels
// that take each K chunk in turn (Gemm.cpp), so three reads compete for the
// L3 traffic:
//   A: read once when the block's rows fit in half of L2 (the next panels
//      find them there), else once per group (each streams every chunk);
//   B: read once per block;
//   C: a group's block rows x panels of C are read again on every chunk: a
//      group is as many panels as keep them, beside the chunk of A, in half
//      of L2.
// A is read as short strided runs (a tile's rows, one K chunk each) that the
// prefetchers follow worse than B's contiguous packed panel: a byte of A
// costs about 2.5 bytes of B (measured on Zen 3 and Sapphire Rapids: at
// 128 x 3072 x 768 blocks of 20 rows lose 18%, at 1500 x 2048 x 512 blocks
// of 32 win 30%; the break-even ratios of the shapes bracket 2 to 3).
// Blocks are of equal size, each a whole number of tiles; rows: M.opt(),
// maxRows: M.max(), the one block a dynamic M gets when blocking does not pay.
struct GemmBlocking {
  int64_t blockRows, groupPanels;
};

static GemmBlocking chooseGemmBlocking(const CpuModel &cpu, int64_t rows, int64_t maxRows,
                                       int64_t k, int64_t n, int64_t tileRows, int64_t chunkK) {
  constexpr double kStridedReadCost = 2.5;
  constexpr int64_t kFloat = sizeof(float);
  rows = std::max<int64_t>(rows, 1);
  k = std::max<int64_t>(k, 1);
  const double aBytes = double(rows) * double(k) * kFloat;
  const double bBytes = double(k) * double(n) * kFloat;
  const int64_t panels = std::max<int64_t>(1, (n + kGemmPanel - 1) / kGemmPanel);
  const int64_t budget = cpu.l2Bytes / 2;
  GemmBlocking best{rows, 1};
  double bestCost = std::numeric_limits<double>::infinity();
  // More blocks than the first whose rows of A fit only re-read B more.
  for (int64_t blocks = 1, blockRows = rows; blockRows > tileRows || blocks == 1; ++blocks) {
    blockRows = ((rows + blocks - 1) / blocks + tileRows - 1) / tileRows * tileRows;
    if ((rows + blockRows - 1) / blockRows != blocks)
      continue; // the same blocks as a smaller count
    const bool aFits = blockRows * k * kFloat <= budget;
    const int64_t groupBytes = budget - blockRows * std::min(k, chunkK) * kFloat;
    const int64_t fitPanels =
        std::clamp<int64_t>(groupBytes / (blockRows * kGemmPanel * kFloat), 1, panels);
    const int64_t groups = aFits ? panels : (panels + fitPanels - 1) / fitPanels;
    const double cost =
        kStridedReadCost * aBytes * double(aFits ? 1 : groups) + bBytes * double(blocks);
    if (cost < bestCost) {
      bestCost = cost;
      best = {blockRows, (panels + groups - 1) / groups};
    }
    if (aFits)
      break;
  }
  if (best.blockRows >= rows)
    best.blockRows = std::max(tileRows, maxRows);
  return best;
}

// A panel's 4 vectors of 16 columns in as few column steps as the
// registers allow (a vector is one zmm or two ymm registers), then as many
// rows as leave room for those B vectors and a broadcast (or, on AVX2, for
// the rows' broadcasts and one ymm of B).
cuvil_tile chooseGemmTile(const CpuModel &cpu, int64_t rows) {
  int64_t split = std::max<int64_t>(1, 16 / cpu.vectorLanes());
  int64_t vectors = std::max<int64_t>(1, 4 / split);
  int64_t perRow = vectors * split;
  int64_t maxRows = (cpu.vectorRegisters - perRow - 1) / perRow;
  // Where a panel row takes 4 registers of 16 (AVX2), the tile holds its
  // broadcasts and streams the row a register at a time (GemmTile.h's
  // kGemmBroadcastsHeld): 3 rows x 32 columns, 12 accumulators, where holding
  // the row leaves room for 2 rows (8 accumulators, one FMA latency's worth on
  // two pipes, so that any stall idles them: BERT's GEMMs +1.5-3% on Zen 3).
  if (vectors == 2 && split == 2)
    maxRows = std::max<int64_t>(maxRows, (cpu.vectorRegisters - 1) / (perRow + 1));
  return {std::clamp<int64_t>(std::min<int64_t>(maxRows, 6), 1, std::max<int64_t>(rows, 1)),
          vectors};
}

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
  for (Dim &stride : g.aBatchStrides)
    stride *= g.M * g.K;
  for (Dim &stride : g.bBatchStrides)
    stride *= g.K * g.N;
  g.outShape = g.batch;
  if (a.size() > 1)
    g.outShape.push_back(g.M);
  if (b.size() > 1)
    g.outShape.push_back(g.N);
  return g;
}

DotProducts matMulDotProducts(const Node &node) {
  return {.bf16 = node.getInt("b_packed", 0) && node.numInputs() > 1 &&
                  node.input(1)->type().dtype == DType::BF16};
}

Status inferMatMul(InferContext &ctx) {
  // f32 activations by f16 or bf16 weight panels (--precision fp16-weights,
  // bf16).
  bool halfPanels = ctx.node().getInt("b_packed", 0) && ctx.inputDType(0) == DType::F32 &&
                    (ctx.inputDType(1) == DType::F16 || ctx.inputDType(1) == DType::BF16);
  if (ctx.inputDType(0) != ctx.inputDType(1) && !halfPanels)
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
  // Constants have static shapes.
  const int64_t M = g->M.constant(), N = g->N.constant(), K = g->K.constant();
  std::vector<int64_t> batchDims = staticDims(g->batch), yDims = y.dims();
  std::vector<int64_t> aBatchStrides = staticDims(g->aBatchStrides);
  std::vector<int64_t> bBatchStrides = staticDims(g->bBatchStrides);
  auto bAt = [&](int64_t base, int64_t k, int64_t n) {
    if (packed)
      return b.getDouble(gemmPanelIndex(K, k, n, b.dtype() == DType::BF16));
    return b.getDouble(base + k * N + n);
  };
  std::vector<int64_t> residualStrides;
  if (residual)
    residualStrides = staticBroadcastStrides(residual->shape(), y.shape());
  int64_t batches = numElements(g->batch).constant();
  std::vector<int64_t> batchIndex(batchDims.size(), 0);
  for (int64_t batch = 0; batch < batches; ++batch) {
    int64_t aBase = 0, bBase = 0;
    for (size_t d = 0; d < batchDims.size(); ++d) {
      aBase += batchIndex[d] * aBatchStrides[d];
      bBase += batchIndex[d] * bBatchStrides[d];
    }
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double sum = 0;
        for (int64_t k = 0; k < K; ++k)
          sum += a.getDouble(aBase + m * K + k) * bAt(bBase, k, n);
        sum = sum * scale + (bias ? bias->getDouble(n) : 0.0);
        int64_t flat = (batch * M + m) * N + n;
        if (residual) {
          int64_t offset = 0, rest = flat;
          for (int64_t d = int64_t(yDims.size()) - 1; d >= 0; --d) {
            offset += (rest % yDims[size_t(d)]) * residualStrides[size_t(d)];
            rest /= yDims[size_t(d)];
          }
          sum += residual->getDouble(offset);
        }
        y.setDouble(flat, activation.apply(sum));
      }
    for (int64_t d = int64_t(batchDims.size()) - 1; d >= 0; --d) {
      if (++batchIndex[size_t(d)] < batchDims[size_t(d)])
        break;
      batchIndex[size_t(d)] = 0;
    }
  }
  return Status::success();
}

namespace {

// A batch that only A has (B is one matrix, packed or given [1.., K, N]) is
// more rows of one GEMM: A's batch is then contiguous, so [b.., M, K] x
// [K, N] is [b.. M, K] x [K, N] with the same output bytes. Run as a batch,
// each M-row product would stream all of B again (a 197 x 768 x 2304
// projection in [seq, 1, hidden] layout took 48 ms instead of 5). A residual
// folds along when its stride over each batch dim continues its row stride
// (rStrides is over the output's dims, the batch dims first).
void foldBatchIntoRows(MatMulGeometry &g, bool packed, const std::vector<Dim> &rStrides,
                       const Dim &rowStride) {
  Dim rows = g.M;
  for (size_t d = g.batch.size(); d-- > 0;) {
    if (g.batch[d].is(1))
      continue;
    if (!(packed || g.bBatchStrides[d].is(0)) || !(rStrides[d] == rowStride * rows))
      return;
    rows = rows * g.batch[d];
  }
  g.M = rows;
  g.batch.clear();
  g.aBatchStrides.clear();
  g.bBatchStrides.clear();
}

} // namespace

Status lowerMatMul(const Node &node, LoweringContext &ctx, const MatMulEpilogue &epilogue) {
  const Value *a = node.input(0), *b = node.input(1);
  if (a->type().dtype != DType::F32)
    return Status::error(
        fmt::format("element type {} is not supported", dtypeName(a->type().dtype)));
  bool packed = node.getInt("b_packed", 0) != 0;
  Expected<MatMulGeometry> g = matMulGeometry(a->type().shape, logicalB(node, b->type().shape));
  CUVIL_TRY(g.status());
  const Shape &out = node.output(0)->type().shape;
  // Residual strides over the output's dims: last 1 (or any, over one
  // column), row N or 0, batch any.
  std::vector<Dim> rStrides(out.size(), 0);
  Dim rowStride = 0;
  if (epilogue.residual) {
    rStrides = broadcastStrides(epilogue.residual->type().shape, out);
    bool rowAndColumn = out.size() >= 2 && g->outShape.size() == g->batch.size() + 2;
    if (!rowAndColumn || !(rStrides.back().is(1) || out.back().is(1)))
      return Status::error("the residual must vary along the output's columns");
    rowStride = rStrides[out.size() - 2];
  }
  foldBatchIntoRows(*g, packed, rStrides, rowStride);
  // The kernel walks at most 4 batch dims, outermost first, the used ones
  // ending the arrays; size-1 dims carry nothing.
  std::vector<size_t> used;
  for (size_t d = 0; d < g->batch.size(); ++d)
    if (!g->batch[d].is(1))
      used.push_back(d);
  if (used.size() > CUVIL_GEMM_MAX_BATCH_RANK)
    return Status::error(
        fmt::format("more than {} non-trivial batch dimensions", CUVIL_GEMM_MAX_BATCH_RANK));
  ParamBlock<cuvil_gemm_params> params;
  std::fill(std::begin(params->batch), std::end(params->batch), 1);
  size_t first = CUVIL_GEMM_MAX_BATCH_RANK - used.size();
  for (size_t i = 0; i < used.size(); ++i) {
    size_t d = used[i];
    params.set(params->batch[first + i], g->batch[d]);
    params.set(params->a_batch_strides[first + i], g->aBatchStrides[d]);
    params.set(params->b_batch_strides[first + i], packed ? Dim(0) : g->bBatchStrides[d]);
    params.set(params->residual_batch_strides[first + i], epilogue.residual ? rStrides[d] : 0);
  }
  params.set(params->M, g->M);
  params.set(params->N, g->N);
  params.set(params->K, g->K);
  params.set(params->lda, g->K);
  params.set(params->b_row_stride, g->N);
  params->b_column_stride = 1;
  params->packed_b = packed ? 1 : 0;
  params.set(params->residual_row_stride, rowStride);
  const DType weightType = packed ? b->type().dtype : DType::F32;
  params->bf16_products = weightType == DType::BF16 && ctx.cpu().bf16Dot ? 1 : 0;
  // Tiling is a cost decision: it takes the shape the static path serves.
  params->tile = chooseGemmTile(ctx.cpu(), g->M.opt());
  // The bf16 tile keeps at most 4 rows (16 accumulators): LLVM allocates
  // vdpbf16ps's tied accumulators less well than FMAs', and 5 or 6 rows
  // spilled in the inner loop (BERT 2 layers: 22 ms at 4 rows, 27 at 6).
  if (params->bf16_products)
    params->tile.pixels = std::min<int64_t>(params->tile.pixels, 4);
  params->chunk_k = chooseChunkK(ctx.cpu());
  const GemmBlocking blocking =
      chooseGemmBlocking(ctx.cpu(), g->M.opt(), g->M.max(), g->K.opt(), g->N.opt(),
                         params->tile.pixels, params->chunk_k);
  params->block_rows = blocking.blockRows;
  params->group_panels = blocking.groupPanels;
  params->prefetch_c = g->M.opt() * g->N.opt() * int64_t(sizeof(float)) > ctx.cpu().l2Bytes / 2;
  params->scale = epilogue.scale;
  params->activation = epilogue.activation.kernel();
  Dim panels = ceilDiv(g->N, kGemmPanel);
  return ctx.callKernel(weightType == DType::BF16  ? kGemmBf16WeightsKernel
                        : weightType == DType::F16 ? kGemmHalfWeightsKernel
                                                   : kGemmKernel,
                        {KernelArg::pointer(a), KernelArg::pointer(b),
                         KernelArg::optionalPointer(epilogue.bias),
                         KernelArg::optionalPointer(epilogue.residual),
                         KernelArg::pointer(node.output(0)), KernelArg::params(params)},
                        numElements(g->batch) * ceilDiv(g->M, Dim(params->block_rows)) * panels,
                        multiplyAddFlops(node.output(0), g->K));
}

} // namespace cuvil::ops
