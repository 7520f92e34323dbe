// Batched matrix multiply with a fused epilogue:
//   C[b] = act(scale * A[b] . B[b] + bias + residual[b])
// A is M x K with row stride lda (unit column stride); B is K x N, either
// prepacked at compile time into panels of 64 columns, Bp[N/64][K][64]
// (zero padded), or any strided view (bK, bN) that each task packs into a
// panel on its stack. C and residual are dense M x N per batch entry; bias
// has N values.
//
// A task is one (batch, block of block_rows rows, 64-column panel), the
// panels of a row block consecutive. A thread runs its tasks in groups of
// up to group_panels consecutive panels of one row block, each K chunk over
// the whole group before the next chunk: the chunk of A (block_rows x
// chunk_k) is read into L2 once for the group, while the group's C stays
// there (the lowering sizes blocks and groups by L2; a group of one panel
// runs all of K on a panel before the next).
// Register tile: MR rows x NV vectors of 16 columns, over K in
// chunks of chunk_k rows:
//   for group of panels in the task range:
//     for k0 in chunks of K:
//       for panel in group:
//         for m0 in the row block, in steps of MR:
//           prefetch the next tile's rows of A (and of C where C outgrows L2)
//           acc[MR][NV] = 0
//           for k in chunk:
//             prefetch a few lines of the next chunk of Bp the thread reads
//             b[v] = panel row k, columns 16v..
//             for r: acc[r][v] += A[m0+r][k] * b[v]
//           C[m0+r][n0+16v..] = first chunk ? scale * acc + bias + residual
//                                           : C + scale * acc   (act after the last)
// The chunk (chunk_k x 64 floats, sized by the lowering for the target's L1)
// stays in L1 while every row tile streams through it. MR x NV = 6 x 4 keeps
// 24 accumulators, 4 B vectors and a broadcast in the 32 zmm registers;
// AVX2, where a 16-lane vector takes two ymm registers, uses narrower tiles
// (MR x NV from the lowering).
#include "GemmBf16Tile.h"

#include "cuvil/kernels/Gemm.h"

using namespace cuvil::kernels;

namespace {

constexpr int64_t kPanel = CUVIL_GEMM_PANEL; // 4 vectors

// Weight: float, or uint16_t holding IEEE half bits (f16 panels): a chunk
// that one row tile uses the tile widens as it loads it; one that several
// use is widened once into the stack panel (a conversion per row tile
// would take issue slots from the FMAs). Bf16Pairs: uint16_t holding bf16
// bits in row pairs (GemmBf16Tile.h), multiplied as bf16 or widened.
template <typename Weight, bool Bf16Pairs = false>
CUVIL_INLINE void gemm(const float *a, const Weight *b, const float *bias, const float *residual,
                       float *c, const cuvil_gemm_params *params, int64_t begin, int64_t end) {
  constexpr bool halfWeights = sizeof(Weight) == 2 && !Bf16Pairs;
  const cuvil_gemm_params &p = *params;
  const int64_t M = p.M, N = p.N, K = p.K, lda = p.lda, MR = p.tile.pixels, NV = p.tile.blocks;
  const int64_t chunkK = p.chunk_k, chunkBytes = chunkK * kPanel * int64_t(sizeof(Weight));
  const int64_t panels = (N + kPanel - 1) / kPanel;
  const int64_t blockRows = p.block_rows, rowBlocks = (M + blockRows - 1) / blockRows;
  float stackPanel[CUVIL_GEMM_MAX_CHUNK_K * kPanel] __attribute__((aligned(64)));
  uint32_t rowPairs[6 * CUVIL_GEMM_MAX_CHUNK_K / 2]; // a row tile's A in bf16 pairs
  for (int64_t groupBegin = begin, groupEnd; groupBegin < end; groupBegin = groupEnd) {
    // The group: this range's tasks of one (batch, row block) whose panels
    // fall in one aligned run of group_panels.
    const int64_t firstPanel = groupBegin % panels, groupPanels = p.group_panels;
    const int64_t groupLimit = (firstPanel / groupPanels + 1) * groupPanels;
    groupEnd = groupBegin - firstPanel + (groupLimit < panels ? groupLimit : panels);
    groupEnd = groupEnd < end ? groupEnd : end;
    for (int64_t k0 = 0; k0 < K; k0 += chunkK)
      for (int64_t task = groupBegin; task < groupEnd; ++task) {
        const int64_t batch = task / (rowBlocks * panels), panel = task % panels,
                      n0 = panel * kPanel;
        const int64_t mBegin = task / panels % rowBlocks * blockRows;
        const int64_t mEnd = M - mBegin < blockRows ? M : mBegin + blockRows;
        int64_t rest = batch, aOffset = 0, bOffset = 0, rOffset = 0;
        for (int d = CUVIL_GEMM_MAX_BATCH_RANK - 1; d >= 0; --d) {
          const int64_t coord = rest % p.batch[d];
          rest /= p.batch[d];
          aOffset += coord * p.a_batch_strides[d];
          bOffset += coord * p.b_batch_strides[d];
          rOffset += coord * p.residual_batch_strides[d];
        }
        const int64_t columns = N - n0 < kPanel ? N - n0 : kPanel;
        float *cPanel = c + batch * M * N + n0;
        const float *rPanel = residual ? residual + rOffset + n0 : nullptr;
        GemmEpilogue e{bias ? bias + n0 : nullptr, nullptr, 0, N, p.activation, float(p.scale)};

        // Later K chunks accumulate into C through the residual path (C itself),
        // the first adds bias/residual.
        const int64_t kc = K - k0 < chunkK ? K - k0 : chunkK;
        const float *panelData = stackPanel;
        const Weight *packed = b + panel * K * kPanel + k0 * kPanel;
        const int64_t rowTiles = (mEnd - mBegin + MR - 1) / MR;
        if constexpr (Bf16Pairs) {
          if (!p.bf16_products)
            widenBf16Pairs(packed, kc / 2, stackPanel);
        } else if constexpr (halfWeights) {
          if (rowTiles > 1)
            for (int64_t i = 0; i < kc * kPanel; i += 16)
              storeV(stackPanel + i, loadPanel(packed + i));
        } else if (p.packed_b) {
          panelData = packed;
        } else {
          const float *src = b + bOffset + k0 * p.b_row_stride + n0 * p.b_column_stride;
          for (int64_t k = 0; k < kc; ++k)
            for (int64_t j = 0; j < kPanel; ++j)
              stackPanel[k * kPanel + j] =
                  j < columns ? src[k * p.b_row_stride + j * p.b_column_stride] : 0.0f;
        }
        const bool first = k0 == 0, last = k0 + kc == K;
        GemmEpilogue part = e;
        part.act.op = last ? e.act.op : CUVIL_UNARY_IDENTITY;
        part.bias = first ? e.bias : nullptr;
        // Packed weights are read once per inference, mostly from DRAM. The
        // next chunk this thread reads (the group's next panel's; after the
        // group's last panel the next chunk of its first; after the last
        // chunk the next panel's first, which the packing puts right after
        // this one) is prefetched into L2 a slice per row tile, spread over
        // the tile's k steps, so that the first tile of every chunk does not
        // wait on memory and the stream overlaps the FMAs. A single row tile
        // (a matrix-vector product) is too short to hide a chunk behind: its
        // one sequential stream is left to the hardware prefetcher (ResNet-50's
        // classifier 0.65 -> 0.54 ms).
        const bool lastOfGroup = task + 1 == groupEnd;
        const Weight *next = !lastOfGroup  ? packed + K * kPanel
                             : k0 + kc < K ? b + firstPanel * K * kPanel + (k0 + kc) * kPanel
                                           : packed + kc * kPanel;
        const char *nextChunk = reinterpret_cast<const char *>(next);
        const int64_t prefetchLines = p.packed_b && rowTiles > 1 ? chunkBytes / 64 : 0;
        const int64_t linesPerTile = (prefetchLines + rowTiles - 1) / rowTiles;
        const int64_t subBlocks = (columns + 16 * NV - 1) / (16 * NV);
        const int64_t linesPerSubBlock = (linesPerTile + subBlocks - 1) / subBlocks;
        for (int64_t m0 = mBegin, line = 0; m0 < mEnd; m0 += MR) {
          const int64_t rowsLeft = mEnd - m0 < MR ? mEnd - m0 : MR;
          // An output that takes more than half of L2 is re-read from L3 on every
          // K chunk after the first: the next tile's rows of C are fetched into
          // L2 while this one computes (Whisper's 1500 x 512 x 2048 FFN GEMM:
          // 126 -> 150 GFLOP/s). A smaller one stays in L2, where the
          // prefetches only cost issue slots (4% at 128 x 768 x 768).
          if (p.prefetch_c)
            for (int64_t r = m0 + MR; r < m0 + 2 * MR && r < mEnd; ++r)
              for (int64_t j = 0; j < columns; j += 16)
                __builtin_prefetch(cPanel + r * N + j, 0, 2);
          // The next tile's rows of A for this chunk (the block's first rows
          // for the next chunk after the group's last tile): short strided
          // runs that the hardware prefetchers do not follow, read from L3
          // once A outgrows L2.
          {
            const bool lastTile = m0 + MR >= mEnd;
            const int64_t nextK = lastTile && lastOfGroup ? k0 + kc : k0;
            const int64_t nextM = lastTile ? mBegin : m0 + MR;
            const int64_t nextKc = K - nextK < chunkK ? K - nextK : chunkK;
            if (nextK < K)
              for (int64_t r = nextM; r < nextM + MR && r < mEnd; ++r)
                for (int64_t j = 0; j < nextKc; j += 16)
                  __builtin_prefetch(a + aOffset + r * lda + nextK + j, 0, 3);
          }
          if (Bf16Pairs && p.bf16_products)
            packBf16Rows(a + aOffset + m0 * lda + k0, lda, rowsLeft, kc / 2, rowPairs);
          // The panel's columns in sub-blocks of 16 NV.
          for (int64_t c0 = 0; c0 < columns; c0 += 16 * NV) {
            const int64_t left = prefetchLines > line ? prefetchLines - line : 0;
            const int64_t lines = left < linesPerSubBlock ? left : linesPerSubBlock;
            const TilePrefetch prefetch{nextChunk + 64 * line, lines};
            line += lines;
            GemmEpilogue sub = part;
            sub.bias = part.bias ? part.bias + c0 : nullptr;
            sub.residual = first ? (rPanel ? rPanel + m0 * p.residual_row_stride + c0 : nullptr)
                                 : cPanel + m0 * N + c0;
            sub.residualLd = first ? p.residual_row_stride : N;
            const float *aRows = a + aOffset + m0 * lda + k0;
            float *cRows = cPanel + m0 * N + c0;
            if constexpr (Bf16Pairs)
              if (p.bf16_products) {
                // The bf16 tile takes its slice at once.
                for (int64_t l = 0; l < prefetch.count; ++l)
                  __builtin_prefetch(prefetch.lines + 64 * l, 0, 2);
                gemmBf16TileOf(NV, rowsLeft, rowPairs, kc / 2, packed + 2 * c0, cRows, columns - c0,
                               sub);
                continue;
              }
            if (halfWeights && rowTiles == 1)
              gemmTile(NV, rowsLeft, aRows, lda, packed + c0, kc, cRows, columns - c0, sub,
                       prefetch);
            else
              gemmTile(NV, rowsLeft, aRows, lda, panelData + c0, kc, cRows, columns - c0, sub,
                       prefetch);
          }
        }
      }
  }
}

} // namespace

CUVIL_KERNEL void cuvil_gemm_f32(const float *a, const float *b, const float *bias,
                                 const float *residual, float *c, const cuvil_gemm_params *params,
                                 int64_t begin, int64_t end) {
  gemm(a, b, bias, residual, c, params, begin, end);
}

CUVIL_KERNEL void cuvil_gemm_f16_weights_f32(const float *a, const uint16_t *b, const float *bias,
                                             const float *residual, float *c,
                                             const cuvil_gemm_params *params, int64_t begin,
                                             int64_t end) {
  gemm(a, b, bias, residual, c, params, begin, end);
}

CUVIL_KERNEL void cuvil_gemm_bf16_weights_f32(const float *a, const uint16_t *b, const float *bias,
                                              const float *residual, float *c,
                                              const cuvil_gemm_params *params, int64_t begin,
                                              int64_t end) {
  gemm<uint16_t, true>(a, b, bias, residual, c, params, begin, end);
}
