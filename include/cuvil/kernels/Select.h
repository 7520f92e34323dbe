/* Kernels whose output extent comes from the data (src/kernels/Select.cpp).
 * Each writes its extent to a symbol's slot (an int64_t of the run), which
 * the code after it reads; the extent never exceeds the bound the compiler
 * planned the output for (the input's element count). */
#ifndef CUVIL_KERNELS_SELECT_H
#define CUVIL_KERNELS_SELECT_H

#include "cuvil/kernels/Common.h"

/* NonZero: y is i64[rank, count], the coordinates of x's nonzero elements
 * in row-major order; *count receives their number. One task. */
struct cuvil_nonzero_params {
  int64_t rank, elements;
  int64_t shape[CUVIL_MAX_RANK];
};
/* By how elements compare with zero (name, C type, sign mask): floats by
 * value (-0 is zero, NaN is not), 16-bit floats (f16, bf16) by their bits
 * without the sign, integers and bool by their bits. */
#define CUVIL_NONZERO_TYPES(X)                                                                     \
  X(f32, float, 0)                                                                                 \
  X(f64, double, 0)                                                                                \
  X(f16, uint16_t, 0x7fff)                                                                         \
  X(b8, uint8_t, 0xff)                                                                             \
  X(b16, uint16_t, 0xffff) X(b32, uint32_t, 0xffffffffu) X(b64, uint64_t, ~0ull)
#define CUVIL_DECLARE_NONZERO(name, T, mask)                                                       \
  CUVIL_KERNEL_DECL void cuvil_nonzero_##name(const T *x, int64_t *y, int64_t *count,              \
                                              const struct cuvil_nonzero_params *p, int64_t begin, \
                                              int64_t end);
CUVIL_NONZERO_TYPES(CUVIL_DECLARE_NONZERO)

/* Compress along an axis: x is [outer, axis_len, inner]; the slices a with
 * a < min(cond_len, axis_len) and cond[a] go to y, [outer, count, inner],
 * in order; *count receives their number. One task. By element size. */
struct cuvil_compress_params {
  int64_t outer, axis_len, inner, cond_len;
};
#define CUVIL_DECLARE_COMPRESS(size, T)                                                            \
  CUVIL_KERNEL_DECL void cuvil_compress_##size(                                                    \
      const T *x, const uint8_t *cond, T *y, int64_t *count,                                       \
      const struct cuvil_compress_params *p, int64_t begin, int64_t end);
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_COMPRESS)

/* Unique along an axis: x is [outer, n, inner] and slice a is x[:, a, :]
 * (without an axis, the flattened x: outer = inner = 1). The distinct slices
 * go to y, [outer, count, inner], ascending (sorted) or by first occurrence;
 * indices[g] is slice g's first occurrence in x, inverse[a] the group of
 * slice a, counts[g] how often slice g occurs; *count receives their
 * number. indices and counts hold n entries (counts is the sort's scratch
 * until the groups are known). Floats compare by value, NaN after every
 * number and equal to NaN. One task. By element type (name, C type). */
struct cuvil_unique_params {
  int64_t outer, n, inner;
  int64_t sorted; /* 0: by first occurrence */
};
#define CUVIL_UNIQUE_TYPES(X)                                                                      \
  X(f32, float)                                                                                    \
  X(f64, double)                                                                                   \
  X(i8, int8_t)                                                                                    \
  X(u8, uint8_t)                                                                                   \
  X(i16, int16_t) X(u16, uint16_t) X(i32, int32_t) X(u32, uint32_t) X(i64, int64_t)                \
      X(u64, uint64_t)
#define CUVIL_DECLARE_UNIQUE(name, T)                                                              \
  CUVIL_KERNEL_DECL void cuvil_unique_##name(                                                      \
      const T *x, T *y, int64_t *indices, int64_t *inverse, int64_t *counts, int64_t *count,       \
      const struct cuvil_unique_params *p, int64_t begin, int64_t end);
CUVIL_UNIQUE_TYPES(CUVIL_DECLARE_UNIQUE)

/* NonMaxSuppression: for each batch b and class c in order, the boxes of
 * boxes[b] (f32[boxes, 4]) whose score scores[b, c, i] is above
 * *score_threshold (every non-NaN score when it is null), best score first
 * (ties by the smaller index), each kept unless its IoU with a box kept
 * before it in the class is above *iou_threshold (0 when null), at most
 * *max_output (0 when null) per class; selected receives [b, c, i] per kept
 * box (capacity rows of 3) and *count their number. Corners are
 * [y1, x1, y2, x2] in either order, or [x_center, y_center, width, height]
 * with center_point_box. One task. */
struct cuvil_nms_params {
  int64_t batches, classes, boxes, capacity;
  int64_t center_point_box;
};
CUVIL_KERNEL_DECL void cuvil_nms_f32(const float *boxes, const float *scores,
                                     const int64_t *max_output, const float *iou_threshold,
                                     const float *score_threshold, int64_t *selected,
                                     int64_t *count, const struct cuvil_nms_params *p,
                                     int64_t begin, int64_t end);

#endif /* CUVIL_KERNELS_SELECT_H */
