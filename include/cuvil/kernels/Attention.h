/* Scaled dot-product attention in one pass, without the score matrix in
 * memory (src/kernels/Attention.cpp, whose header comment gives the loop
 * nest):
 *   O[b] = softmax(scale * Q[b] . Kt[b] + mask[b], along rows) . V[b] */
#ifndef CUVIL_KERNELS_ATTENTION_H
#define CUVIL_KERNELS_ATTENTION_H

#include "cuvil/kernels/Gemm.h"

/* Batch dimensions the mask broadcasts over (size-1 ones dropped first). */
#define CUVIL_ATTENTION_MAX_BATCH_RANK 4

struct cuvil_attention_params {
  int64_t batch[CUVIL_ATTENTION_MAX_BATCH_RANK];              /* outermost first, 1-padded */
  int64_t mask_batch_strides[CUVIL_ATTENTION_MAX_BATCH_RANK]; /* elements, 0 = broadcast */
  int64_t mask_row_stride; /* N, or 0 when one row serves every query */
  int64_t M, N, K, D;      /* queries, keys, query/key width, value width */
  struct cuvil_tile tile;  /* the GEMM register tile: rows x 16-column vectors */
  int64_t block_rows;      /* queries whose scores are held at once, a multiple of tile rows */
  int64_t chunk_k;         /* rows of a packed panel per chunk: a chunk stays in L1 */
  int64_t slot_floats;     /* scratch per task: packed Kt, packed V, block_rows score rows and their
                              sums' inverses */
  double scale;
  /* Element strides of each operand's batch dims (as batch) and rows. Q, V
   * and O have unit column strides; Kt has a unit stride along K or along N:
   * the transposes that split heads out of [B, S, H, D] and merge them back
   * (K^T included, transposed as it is packed) are these strides. */
  int64_t q_batch_strides[CUVIL_ATTENTION_MAX_BATCH_RANK];
  int64_t kt_batch_strides[CUVIL_ATTENTION_MAX_BATCH_RANK];
  int64_t v_batch_strides[CUVIL_ATTENTION_MAX_BATCH_RANK];
  int64_t o_batch_strides[CUVIL_ATTENTION_MAX_BATCH_RANK];
  int64_t q_row_stride, kt_k_stride, kt_n_stride, v_row_stride, o_row_stride;
};
/* Q [b, M, K], Kt [b, K, N], V [b, N, D], O [b, M, D], strided as the
 * params give; mask (optional) broadcasts to [b, M, N] with unit column
 * stride. A task is one batch entry, with the scratch slot of its index. */
CUVIL_KERNEL_DECL void cuvil_attention_f32(const float *q, const float *kt, const float *v,
                                           const float *mask, float *o, float *scratch,
                                           const struct cuvil_attention_params *p, int64_t begin,
                                           int64_t end);

#endif /* CUVIL_KERNELS_ATTENTION_H */
