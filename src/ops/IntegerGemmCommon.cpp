#include "IntegerGemmCommon.h"

#include "cuvil/kernels/PairedByteProducts.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

bool isEightBit(DType dtype) { return dtype == DType::U8 || dtype == DType::I8; }

// A zero point or scale of `param`'s shape for A (`rows`: per tensor, per
// row [..., M, 1], or [M] for a matrix) or B (per tensor, per column
// [..., 1, N] or [N]), its batch dims equal to the product's or 1.
Expected<OperandQuant> operandQuant(const Shape &param, const MatMulGeometry &g, bool rows,
                                    size_t operandRank, std::string_view what) {
  size_t batchRank = g.batch.size();
  OperandQuant quant{std::vector<Dim>(batchRank, 0), 0};
  if (numElements(param).is(1))
    return quant;
  Shape target = g.batch;
  target.push_back(rows ? g.M : Dim(1));
  target.push_back(rows ? Dim(1) : g.N);
  Shape shape = param;
  if (rows && shape.size() == 1 && operandRank == 2)
    shape.push_back(1); // [M] of a matrix A
  bool fits = shape.size() <= target.size();
  for (size_t d = 0; fits && d < shape.size(); ++d) {
    const Dim &dim = shape[shape.size() - 1 - d], &want = target[target.size() - 1 - d];
    fits = dim == want || dim.is(1);
  }
  if (!fits)
    return Status::error(
        fmt::format("{} has shape [{}]: it must have one element or be per {} ([{}])", what,
                    shapeToString(param), rows ? "row" : "column", shapeToString(target)));
  std::vector<Dim> strides = broadcastStrides(shape, target);
  std::copy_n(strides.begin(), batchRank, quant.batchStrides.begin());
  quant.stride = strides[batchRank + (rows ? 0 : 1)];
  return quant;
}

std::string_view inputName(const IntegerMatMulInputs &inputs, size_t input) {
  if (input == inputs.aZero)
    return "a_zero_point";
  if (input == inputs.bZero)
    return "b_zero_point";
  return input == inputs.aScale ? "a_scale" : "b_scale";
}

// The quantization of one operand from its zero point or scale, whichever
// the node has (both have one shape).
Expected<OperandQuant> quantOf(const Node &node, const IntegerMatMulInputs &inputs,
                               const MatMulGeometry &g, bool isA) {
  size_t zero = isA ? inputs.aZero : inputs.bZero;
  std::optional<size_t> scale = isA ? inputs.aScale : inputs.bScale;
  size_t rank = node.input(isA ? inputs.a : inputs.b)->type().rank();
  std::optional<size_t> given = node.hasInput(zero) ? std::optional(zero) : scale;
  if (!given)
    return OperandQuant{std::vector<Dim>(g.batch.size(), 0), 0};
  return operandQuant(node.input(*given)->type().shape, g, isA, rank, inputName(inputs, *given));
}

// B's shape as the product sees it: [K, N] when packed (K from A, N the
// b_columns attribute), checked against the panels' shape.
Expected<Shape> logicalB(const Node &node, const IntegerMatMulInputs &inputs) {
  const Shape &b = node.input(inputs.b)->type().shape;
  if (!node.getInt("b_packed", 0))
    return b;
  const Shape &a = node.input(inputs.a)->type().shape;
  const int64_t N = node.getInt("b_columns", 0);
  if (a.empty() || !a.back().isConstant() || a.back().constant() % 4 != 0 || N < 1)
    return Status::error(fmt::format("packed panels need a static K that is a multiple of 4 and "
                                     "b_columns, not A [{}] and b_columns {}",
                                     shapeToString(a), N));
  const int64_t K = a.back().constant();
  const Shape panels = {Dim(ceilDiv(N, CUVIL_IGEMM_PANEL)), Dim(CUVIL_IGEMM_PACKED_PANEL_BYTES(K))};
  if (b != panels || node.input(inputs.b)->type().dtype != DType::I8)
    return Status::error(fmt::format("packed panels of [{}, {}] are i8 [{}], not {}", K, N,
                                     shapeToString(panels), node.input(inputs.b)->type().str()));
  return Shape{Dim(K), Dim(N)};
}

// The byte path (no VNNI) for constant i8 weights with zero point 0
// (bytePathFor), as cuvil_integer_products.
template <typename At> int64_t byteProducts(const CpuModel &cpu, int64_t lines, int64_t K, At at) {
  switch (bytePathFor(cpu.i16PairProducts, lines, K, at)) {
  case BytePath::Paired:
    return CUVIL_PRODUCTS_BYTES_PAIRED;
  case BytePath::Single:
    return CUVIL_PRODUCTS_BYTES;
  case BytePath::None:
    break;
  }
  return CUVIL_PRODUCTS_WORDS;
}

// The byte path for packed panels (pack-matmul checked that one is
// exact): each panel's [K / 4][64][4] quads (the column sums that follow
// are not weights), a line per column.
Expected<int64_t> packedProducts(const CpuModel &cpu, const Tensor &panels, int64_t K) {
  if (cpu.int8Dot)
    return int64_t(CUVIL_PRODUCTS_DOT);
  const int8_t *bytes = panels.data<int8_t>();
  const int64_t panelBytes = CUVIL_IGEMM_PACKED_PANEL_BYTES(K);
  const int64_t products =
      byteProducts(cpu, panels.dim(0) * CUVIL_IGEMM_PANEL, K, [&](int64_t line, int64_t k) {
        const int64_t panel = line / CUVIL_IGEMM_PANEL, column = line % CUVIL_IGEMM_PANEL;
        return bytes[panel * panelBytes + (k / 4 * CUVIL_IGEMM_PANEL + column) * 4 + k % 4];
      });
  if (products == CUVIL_PRODUCTS_WORDS)
    return Status::error("packed panels hold weights this CPU's byte products do not multiply "
                         "exactly (|w| > 64 in a column beyond the paired sets' bound)");
  return products;
}

} // namespace

std::vector<AttrSpec> packedOperandAttributes() {
  return {{"b_packed", AttrKind::Int}, {"b_columns", AttrKind::Int}};
}

Expected<IntegerMatMulGeometry> integerMatMulGeometry(const Node &node,
                                                      const IntegerMatMulInputs &inputs) {
  Expected<Shape> bShape = logicalB(node, inputs);
  CUVIL_TRY(bShape.status());
  Expected<MatMulGeometry> product = matMulGeometry(node.input(inputs.a)->type().shape, *bShape);
  CUVIL_TRY(product.status());
  Expected<OperandQuant> a = quantOf(node, inputs, *product, true);
  CUVIL_TRY(a.status());
  Expected<OperandQuant> b = quantOf(node, inputs, *product, false);
  CUVIL_TRY(b.status());
  return IntegerMatMulGeometry{*product, *a, *b};
}

Status checkScalarInput(const InferContext &ctx, size_t input, std::string_view what) {
  if (!numElements(ctx.inputShape(input)).is(1))
    return ctx.error("{} has shape [{}]: it must have one element", what,
                     shapeToString(ctx.inputShape(input)));
  return Status::success();
}

Status inferIntegerMatMul(InferContext &ctx, const IntegerMatMulInputs &inputs, DType result) {
  for (size_t operand : {inputs.a, inputs.b})
    if (!isEightBit(ctx.inputDType(operand)))
      return ctx.error("operands must be u8 or i8, got {}", dtypeName(ctx.inputDType(operand)));
  for (auto [zero, operand] :
       {std::pair{inputs.aZero, inputs.a}, std::pair{inputs.bZero, inputs.b}})
    if (ctx.hasInput(zero) && ctx.inputDType(zero) != ctx.inputDType(operand))
      return ctx.error("{} is {}, its operand {}", inputName(inputs, zero),
                       dtypeName(ctx.inputDType(zero)), dtypeName(ctx.inputDType(operand)));
  for (auto [scale, zero] :
       {std::pair{inputs.aScale, inputs.aZero}, std::pair{inputs.bScale, inputs.bZero}}) {
    if (!scale)
      continue;
    if (ctx.inputDType(*scale) != DType::F32)
      return ctx.error("{} is {}: f32 is supported", inputName(inputs, *scale),
                       dtypeName(ctx.inputDType(*scale)));
    if (ctx.hasInput(zero) && ctx.inputShape(*scale) != ctx.inputShape(zero))
      return ctx.error("{} has shape [{}], {} [{}]: they must be equal", inputName(inputs, *scale),
                       shapeToString(ctx.inputShape(*scale)), inputName(inputs, zero),
                       shapeToString(ctx.inputShape(zero)));
  }
  Expected<IntegerMatMulGeometry> g = integerMatMulGeometry(ctx.node(), inputs);
  CUVIL_TRY(g.status());
  ctx.setOutput(0, TensorType{result, g->product.outShape});
  return Status::success();
}

Status evalIntegerMatMul(const Node &node, const IntegerMatMulInputs &inputs,
                         std::span<const Tensor *const> in, const IntegerProductVisitor &visit) {
  Expected<IntegerMatMulGeometry> g = integerMatMulGeometry(node, inputs);
  CUVIL_TRY(g.status());
  const Tensor &a = *in[inputs.a], &b = *in[inputs.b];
  const Tensor *aZero = in.size() > inputs.aZero ? in[inputs.aZero] : nullptr;
  const Tensor *bZero = in.size() > inputs.bZero ? in[inputs.bZero] : nullptr;
  const int64_t M = g->product.M.constant(), N = g->product.N.constant();
  const int64_t K = g->product.K.constant();
  std::vector<int64_t> batchDims = staticDims(g->product.batch);
  std::vector<int64_t> batchIndex(batchDims.size(), 0);
  const int64_t aRowStride = g->a.stride.constant(), bColumnStride = g->b.stride.constant();
  // B[k][n] of a packed B: its quad in the column's panel.
  const bool packed = node.getInt("b_packed", 0) != 0;
  auto bAt = [&](int64_t base, int64_t k, int64_t n) {
    if (!packed)
      return b.getInt(base + k * N + n);
    const int64_t panel = n / CUVIL_IGEMM_PANEL, j = n % CUVIL_IGEMM_PANEL;
    return b.getInt(panel * CUVIL_IGEMM_PACKED_PANEL_BYTES(K) +
                    (k / 4 * CUVIL_IGEMM_PANEL + j) * 4 + k % 4);
  };
  for (int64_t batch = 0, batches = numElements(g->product.batch).constant(); batch < batches;
       ++batch) {
    int64_t aBase = 0, bBase = 0, aQuant = 0, bQuant = 0;
    for (size_t d = 0; d < batchDims.size(); ++d) {
      aBase += batchIndex[d] * g->product.aBatchStrides[d].constant();
      bBase += batchIndex[d] * g->product.bBatchStrides[d].constant();
      aQuant += batchIndex[d] * g->a.batchStrides[d].constant();
      bQuant += batchIndex[d] * g->b.batchStrides[d].constant();
    }
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        int64_t aEntry = aQuant + m * aRowStride, bEntry = bQuant + n * bColumnStride;
        int64_t za = aZero ? aZero->getInt(aEntry) : 0, zb = bZero ? bZero->getInt(bEntry) : 0;
        uint32_t acc = 0; // wraps, as the kernel's i32 accumulators
        for (int64_t k = 0; k < K; ++k)
          acc += uint32_t((a.getInt(aBase + m * K + k) - za) * (bAt(bBase, k, n) - zb));
        visit((batch * M + m) * N + n, int32_t(acc), aEntry, bEntry);
      }
    for (int64_t d = int64_t(batchDims.size()) - 1; d >= 0; --d) {
      if (++batchIndex[size_t(d)] < batchDims[size_t(d)])
        break;
      batchIndex[size_t(d)] = 0;
    }
  }
  return Status::success();
}

int64_t integerProducts(const CpuModel &cpu, const Value *image, const Value *weights,
                        const Value *weightZero, WeightLines lines) {
  if (image->type().dtype != DType::U8 || weights->type().dtype != DType::I8)
    return CUVIL_PRODUCTS_WORDS;
  if (weightZero) {
    if (!weightZero->isConstant())
      return CUVIL_PRODUCTS_WORDS;
    for (int64_t i = 0; i < weightZero->constant().numElements(); ++i)
      if (weightZero->constant().getInt(i) != 0)
        return CUVIL_PRODUCTS_WORDS;
  }
  if (cpu.int8Dot)
    return CUVIL_PRODUCTS_DOT;
  if (!weights->isConstant())
    return CUVIL_PRODUCTS_WORDS;
  const Tensor &w = weights->constant();
  const int8_t *values = w.data<int8_t>();
  const int64_t count = w.numElements();
  if (count == 0)
    return CUVIL_PRODUCTS_BYTES;
  if (lines == WeightLines::Rows) { // [M, K...]
    const int64_t K = count / w.dim(0);
    return byteProducts(cpu, w.dim(0), K,
                        [&](int64_t line, int64_t k) { return values[line * K + k]; });
  }
  // [..., K, N] (or a vector [K]): a line per column of each batch entry.
  const size_t rank = w.shape().size();
  const int64_t N = rank >= 2 ? w.dim(rank - 1) : 1, K = rank >= 2 ? w.dim(rank - 2) : w.dim(0);
  return byteProducts(cpu, count / K, K, [&](int64_t line, int64_t k) {
    return values[line / N * K * N + k * N + line % N];
  });
}

DotProducts integerDotProducts(const Node &) { return {.int8 = true}; }

Dim integerWorkFlops(const Dim &macs, int64_t products) {
  return products == CUVIL_PRODUCTS_DOT ? floorDiv(2 * macs, Dim(4)) : 2 * macs;
}

namespace {

// K rows whose packed panel chunk (rowBytes a row: 64 i16, or 64 bytes on
// the byte paths) fills half of L1.
int64_t chunkRows(const CpuModel &cpu, int64_t rowBytes) {
  int64_t chunk = 16;
  while (chunk * 2 <= std::min<int64_t>(cpu.l1Bytes / 2 / rowBytes, CUVIL_IGEMM_MAX_CHUNK_K))
    chunk *= 2;
  return chunk;
}

// The register tile of the most accumulators (wider on ties) that
// fits(rows, vectors).
template <typename Fits> cuvil_tile largestTile(Fits fits) {
  cuvil_tile tile{1, 2};
  for (int64_t vectors : {2, 4, 8})
    for (int64_t tileRows = 1; tileRows <= 6; ++tileRows)
      if (fits(tileRows, vectors) && tileRows * vectors >= tile.pixels * tile.blocks)
        tile = {tileRows, vectors};
  return tile;
}

} // namespace

cuvil_igemm_blocking chooseIntegerBlocking(const CpuModel &cpu, int64_t rows, int64_t products) {
  // The dot tile's vectors are 512-bit (AVX512-VNNI), two 8-column
  // vectors to a register, beside its panel vectors and a broadcast
  // (6 x 8: 24 + 4 + 1 of 32).
  const int64_t rowBlock = std::clamp<int64_t>(rows, 1, CUVIL_IGEMM_MAX_ROW_BLOCK);
  if (products == CUVIL_PRODUCTS_DOT)
    return {rowBlock, largestTile([&](int64_t tileRows, int64_t vectors) {
              return CUVIL_IGEMM_DOT_TILE_INSTANTIATED(tileRows, vectors) &&
                     (tileRows + 1) * vectors / 2 + 2 <= cpu.vectorRegisters;
            }),
            chunkRows(cpu, CUVIL_IGEMM_PANEL)};
  // The other tiles' vectors are 256-bit (IntegerGemmTile.h): the most
  // accumulators that fit beside a K pair's B vectors (LLVM keeps them in
  // registers), a broadcast and a product, with one register to spare
  // (AVX2: 5 x 2, AVX-512: 6 x 4). Paired byte products hold two quads' B
  // vectors, broadcasts and products, and vpmaddwd's ones, which LLVM keeps
  // in a register (AVX2: 3 x 2, AVX-512: 4 x 4).
  // Wider tiles on ties. Registers count in 256-bit units (NEON's 32 q
  // registers hold 16), and where the products are widening multiplies
  // their results need room too: a 2 x 2 tile on NEON is the largest that
  // checks spill-free (e2e_spills).
  const int64_t registers = cpu.vectorRegisters * std::min(cpu.vectorBits, 256) / 256;
  const bool paired = products == CUVIL_PRODUCTS_BYTES_PAIRED;
  const int64_t beside = paired ? 5 : cpu.i16PairProducts ? 3 : 9;
  const int64_t bVectors = paired ? 2 : 1; // per column vector of the tile
  const cuvil_tile tile = largestTile([&](int64_t tileRows, int64_t vectors) {
    return CUVIL_IGEMM_TILE_INSTANTIATED(tileRows, vectors) &&
           tileRows * vectors + bVectors * vectors + beside <= registers;
  });
  const int64_t rowBytes = CUVIL_IGEMM_PANEL * (products == CUVIL_PRODUCTS_WORDS ? 2 : 1);
  return {rowBlock, tile, chunkRows(cpu, rowBytes)};
}

Expected<IntegerGemmCall> integerGemmCall(const Node &node, const LoweringContext &ctx,
                                          const IntegerMatMulInputs &inputs) {
  Expected<IntegerMatMulGeometry> g = integerMatMulGeometry(node, inputs);
  CUVIL_TRY(g.status());
  const MatMulGeometry &product = g->product;
  // The kernel walks at most 4 batch dims, the used ones ending the arrays;
  // size-1 dims carry nothing.
  std::vector<size_t> used;
  for (size_t d = 0; d < product.batch.size(); ++d)
    if (!product.batch[d].is(1))
      used.push_back(d);
  if (used.size() > CUVIL_IGEMM_MAX_BATCH_RANK)
    return Status::error(
        fmt::format("more than {} non-trivial batch dimensions", CUVIL_IGEMM_MAX_BATCH_RANK));
  IntegerGemmCall call;
  ParamBlock<cuvil_igemm_params> &params = call.params;
  std::fill(std::begin(params->batch), std::end(params->batch), 1);
  size_t first = CUVIL_IGEMM_MAX_BATCH_RANK - used.size();
  for (size_t i = 0; i < used.size(); ++i) {
    size_t d = used[i];
    params.set(params->batch[first + i], product.batch[d]);
    params.set(params->a_batch_strides[first + i], product.aBatchStrides[d]);
    params.set(params->b_batch_strides[first + i], product.bBatchStrides[d]);
    params.set(params->a_quant_batch_strides[first + i], g->a.batchStrides[d]);
    params.set(params->b_quant_batch_strides[first + i], g->b.batchStrides[d]);
  }
  params.set(params->M, product.M);
  params.set(params->N, product.N);
  params.set(params->K, product.K);
  params.set(params->lda, product.K);
  params.set(params->ldb, product.N);
  params.set(params->a_quant_row_stride, g->a.stride);
  params.set(params->b_quant_column_stride, g->b.stride);
  // Blocking is a cost decision: it takes the shape the static path serves.
  // The byte path reads A's rows as whole quads: K a multiple of 4. Packed
  // weights have zero point 0 and a byte path on every variant of the
  // target (pack-matmul checked; packedProducts picks it).
  params->b_packed = node.getInt("b_packed", 0) != 0;
  if (params->b_packed && !node.input(inputs.b)->isConstant())
    return Status::error("packed panels must be constant");
  if (params->b_packed) {
    Expected<int64_t> products =
        packedProducts(ctx.cpu(), node.input(inputs.b)->constant(), product.K.constant());
    CUVIL_TRY(products.status());
    params->products = *products;
  } else
    params->products = product.K.isConstant() && product.K.constant() % 4 == 0
                           ? integerProducts(ctx.cpu(), node.input(inputs.a), node.input(inputs.b),
                                             node.input(inputs.bZero), WeightLines::Columns)
                           : int64_t(CUVIL_PRODUCTS_WORDS);
  params->blocking = chooseIntegerBlocking(ctx.cpu(), product.M.opt(), params->products);
  call.tasks = numElements(product.batch) * ceilDiv(product.M, params->blocking.row_block) *
               ceilDiv(product.N, CUVIL_IGEMM_PANEL);
  call.flops = integerWorkFlops(numElements(product.batch) * product.M * product.N * product.K,
                                params->products);
  return call;
}

} // namespace cuvil::ops
