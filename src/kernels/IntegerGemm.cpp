// Batched integer matrix product (MatMulInteger, QLinearMatMul). A task is
// one (batch entry, block of row_block rows, panel of 64 columns):
//   offsets of A, B and their zero points / scales from the batch
//   coordinates (strides 0 where broadcast)
//   acc = (A - a_zero)[rows] . (B - b_zero)[:, panel]   (IntegerGemmTile.h;
//         u8 A by 7-bit i8 B: the byte path of IntegerNarrowTile.h, its
//         panel packed per task or, for constant weights, at compile time)
//   igemm: y[b][m][n] = acc[m][n]
//   qgemm: y[b][m][n] = saturate(round_half_even(float(acc[m][n])
//                                * (a_scale[m] * b_scale[n] / y_scale)) + y_zero)
//   dqgemm: y[b][m][n] = activation(float(acc[m][n]) * (a_scale[m] * b_scale[n]) + bias[n])
// The requantization multiplier is computed as ONNX Runtime does, in f32:
// (a_scale * b_scale) / y_scale.
#include "IntegerGemmTile.h"
#include "IntegerNarrowTile.h"
#include "QuantizedValue.h"

#include "cuvil/kernels/IntegerGemm.h"

using namespace cuvil::kernels;

namespace {

// Where a task's operands start.
struct GemmTask {
  int64_t batch, m0, rows, n0, columns;
  int64_t aOffset, bOffset, aQuantOffset, bQuantOffset;
};

// Calls store(task, acc) after accumulating each task.
template <typename A, typename B, typename Store>
CUVIL_INLINE void integerGemm(const A *a, const B *b, const A *aZero, const B *bZero,
                              const cuvil_igemm_params &p, int64_t begin, int64_t end,
                              Store store) {
  const int64_t rowBlock = p.blocking.row_block;
  const int64_t rowBlocks = (p.M + rowBlock - 1) / rowBlock;
  const int64_t panels = (p.N + kIntegerPanel - 1) / kIntegerPanel;
  for (int64_t task = begin; task < end; ++task) {
    GemmTask t{};
    const int64_t panel = task % panels, rest = task / panels;
    t.batch = rest / rowBlocks;
    t.m0 = rest % rowBlocks * rowBlock;
    t.rows = p.M - t.m0 < rowBlock ? p.M - t.m0 : rowBlock;
    t.n0 = panel * kIntegerPanel;
    t.columns = p.N - t.n0 < kIntegerPanel ? p.N - t.n0 : kIntegerPanel;
    int64_t coordinates = t.batch;
    for (int d = CUVIL_IGEMM_MAX_BATCH_RANK - 1; d >= 0; --d) {
      const int64_t coordinate = coordinates % p.batch[d];
      coordinates /= p.batch[d];
      t.aOffset += coordinate * p.a_batch_strides[d];
      t.bOffset += coordinate * p.b_batch_strides[d];
      t.aQuantOffset += coordinate * p.a_quant_batch_strides[d];
      t.bQuantOffset += coordinate * p.b_quant_batch_strides[d];
    }
    t.aQuantOffset += t.m0 * p.a_quant_row_stride;
    t.bQuantOffset += t.n0 * p.b_quant_column_stride;
    IntegerAccumulators acc;
    if constexpr (sizeof(A) == 1 && A(-1) > A(0) && B(-1) < B(0)) { // u8 A, i8 B
      if (p.products != CUVIL_PRODUCTS_WORDS && p.K > 0) {
        const uint8_t *rows = reinterpret_cast<const uint8_t *>(a + t.aOffset + t.m0 * p.lda);
        auto rowZero = [&](int64_t r) CUVIL_LAMBDA_INLINE {
          return aZero ? int32_t(aZero[t.aQuantOffset + r * p.a_quant_row_stride]) : 0;
        };
        if (p.b_packed)
          accumulatePackedNarrowGemmTask(p.blocking, p.products, rows, p.lda,
                                         reinterpret_cast<const uint8_t *>(b) +
                                             panel * CUVIL_IGEMM_PACKED_PANEL_BYTES(p.K),
                                         t.rows, t.columns, p.K, rowZero, acc);
        else
          accumulateNarrowGemmTask(p.blocking, p.products, rows, p.lda,
                                   reinterpret_cast<const int8_t *>(b + t.bOffset + t.n0), p.ldb,
                                   t.rows, t.columns, p.K, rowZero, acc);
        store(t, acc);
        continue;
      }
    }
    accumulateIntegerTask(
        p.blocking, t.rows, t.columns, p.K,
        [&](int64_t k0, int64_t kc, IntegerChunk &chunk) {
          packIntegerRows(a + t.aOffset + t.m0 * p.lda, p.lda, t.rows, k0, kc,
                          aZero ? aZero + t.aQuantOffset : nullptr, p.a_quant_row_stride, chunk);
        },
        [&](int64_t k0, int64_t kc, IntegerChunk &chunk) {
          packIntegerPanel(b + t.bOffset + t.n0, p.ldb, k0, kc, t.columns,
                           bZero ? bZero + t.bQuantOffset : nullptr, p.b_quant_column_stride,
                           chunk);
        },
        acc);
    store(t, acc);
  }
}

// Calls store(y element, float(acc), row scale * column scale, column)
// for each result of the task (the requantizing and dequantizing stores).
template <typename Y, typename Store>
CUVIL_INLINE void storeScaled(const GemmTask &t, const IntegerAccumulators &acc,
                              const cuvil_igemm_params &p, const float *aScale, const float *bScale,
                              Y *y, Store store) {
  for (int64_t r = 0; r < t.rows; ++r) {
    const float rowScale = aScale[t.aQuantOffset + r * p.a_quant_row_stride];
    const float *columnScale = bScale + t.bQuantOffset;
    Y *out = y + (t.batch * p.M + t.m0 + r) * p.N + t.n0;
    for (int64_t j = 0; j < t.columns; ++j)
      store(out[j], float(acc.at(r, j)), rowScale * columnScale[j * p.b_quant_column_stride],
            t.n0 + j);
  }
}

template <typename A, typename B>
CUVIL_INLINE void igemm(const A *a, const B *b, const A *aZero, const B *bZero, int32_t *y,
                        const cuvil_igemm_params *params, int64_t begin, int64_t end) {
  const cuvil_igemm_params &p = *params;
  integerGemm(a, b, aZero, bZero, p, begin, end,
              [&](const GemmTask &t, const IntegerAccumulators &acc) CUVIL_LAMBDA_INLINE {
                for (int64_t r = 0; r < t.rows; ++r) {
                  int32_t *out = y + (t.batch * p.M + t.m0 + r) * p.N + t.n0;
                  for (int64_t j = 0; j < t.columns; ++j)
                    out[j] = acc.at(r, j);
                }
              });
}

template <typename A, typename B, typename Y>
CUVIL_INLINE void qgemm(const A *a, const float *aScale, const A *aZero, const B *b,
                        const float *bScale, const B *bZero, const float *yScale, const Y *yZero,
                        Y *y, const cuvil_igemm_params *params, int64_t begin, int64_t end) {
  const cuvil_igemm_params &p = *params;
  const float outScale = *yScale;
  const int32_t outZero = *yZero;
  integerGemm(a, b, aZero, bZero, p, begin, end,
              [&](const GemmTask &t, const IntegerAccumulators &acc) CUVIL_LAMBDA_INLINE {
                storeScaled(
                    t, acc, p, aScale, bScale, y,
                    [&](Y &out, float value, float scale, int64_t) CUVIL_LAMBDA_INLINE {
                      out = roundToQuantized<Y, QuantizedRange<Y>::low, QuantizedRange<Y>::high>(
                          value * (scale / outScale), outZero);
                    });
              });
}

template <typename A, typename B>
CUVIL_INLINE void dqgemm(const A *a, const float *aScale, const A *aZero, const B *b,
                         const float *bScale, const B *bZero, const float *bias, float *y,
                         const cuvil_dqgemm_params *params, int64_t begin, int64_t end) {
  const cuvil_igemm_params &p = params->gemm;
  const cuvil_unary activation = params->activation;
  integerGemm(a, b, aZero, bZero, p, begin, end,
              [&](const GemmTask &t, const IntegerAccumulators &acc) CUVIL_LAMBDA_INLINE {
                storeScaled(
                    t, acc, p, aScale, bScale, y,
                    [&](float &out, float value, float scale, int64_t n) CUVIL_LAMBDA_INLINE {
                      out = applyUnary(activation, value * scale + (bias ? bias[n] : 0.0f));
                    });
              });
}

} // namespace

#define CUVIL_DEFINE_IGEMM(an, A, bn, B)                                                           \
  CUVIL_KERNEL void cuvil_igemm_##an##_##bn(                                                       \
      const A *a, const B *b, const A *a_zero, const B *b_zero, int32_t *y,                        \
      const cuvil_igemm_params *p, int64_t begin, int64_t end) {                                   \
    igemm(a, b, a_zero, b_zero, y, p, begin, end);                                                 \
  }
CUVIL_IGEMM_TYPES(CUVIL_DEFINE_IGEMM)

#define CUVIL_DEFINE_QGEMM(an, A, bn, B, yn, Y)                                                    \
  CUVIL_KERNEL void cuvil_qgemm_##an##_##bn##_##yn(                                                \
      const A *a, const float *a_scale, const A *a_zero, const B *b, const float *b_scale,         \
      const B *b_zero, const float *y_scale, const Y *y_zero, Y *y, const cuvil_igemm_params *p,   \
      int64_t begin, int64_t end) {                                                                \
    qgemm(a, a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero, y, p, begin, end);              \
  }
CUVIL_QGEMM_TYPES(CUVIL_DEFINE_QGEMM)

#define CUVIL_DEFINE_DQGEMM(an, A, bn, B)                                                          \
  CUVIL_KERNEL void cuvil_dqgemm_##an##_##bn(                                                      \
      const A *a, const float *a_scale, const A *a_zero, const B *b, const float *b_scale,         \
      const B *b_zero, const float *bias, float *y, const cuvil_dqgemm_params *p, int64_t begin,   \
      int64_t end) {                                                                               \
    dqgemm(a, a_scale, a_zero, b, b_scale, b_zero, bias, y, p, begin, end);                        \
  }
CUVIL_IGEMM_TYPES(CUVIL_DEFINE_DQGEMM)
