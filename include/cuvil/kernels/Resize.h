/* Resize (src/kernels/Resize.cpp): each output element is a weighted sum
 * of input elements, separable over the axes. The input is seen as
 * [axis 0, ..., axis 5, inner] (right-aligned: leading unused axes have
 * extent 1), `inner` contiguous elements that no axis resizes. On a
 * resized axis, output coordinate j maps to x = transform(j) in the input
 * (the coordinate transformation mode) and reads the taps around x:
 *   nearest: the one element round(x) (the nearest mode), clamped;
 *   linear, cubic: `window` elements t from floor(x - support) + 1, each
 *     weighing filter((t - x) s) with s = min(scale, 1) under antialias, 1
 *     otherwise, and support = (1 for linear, 2 for cubic) / s; taps
 *     outside the axis read its edge, or with exclude_outside weigh 0;
 *     the weights are normalised to sum 1 under antialias and
 *     exclude_outside.
 * With tf_crop_and_resize, an output element any of whose coordinates
 * maps outside [0, in - 1] is the extrapolation value instead.
 *
 * A task is one output row: fixed coordinates on axes 0..4, the whole of
 * axis 5 and inner. The kernel computes the taps of axis 5 once per call
 * (in chunks of columns) and those of axes 0..4 once per row. */
#ifndef CUVIL_KERNELS_RESIZE_H
#define CUVIL_KERNELS_RESIZE_H

#include "cuvil/kernels/Common.h"

#define CUVIL_RESIZE_AXES 6
/* The most taps of one output coordinate on one axis, and of one output
 * row over axes 0..4 together (the product of their windows). */
#define CUVIL_RESIZE_MAX_WINDOW 64
#define CUVIL_RESIZE_MAX_ROW_TAPS 256
/* Taps of axis 5 computed at a time: the columns of a chunk times its
 * window. */
#define CUVIL_RESIZE_COLUMN_TAPS 2048
/* Linear and cubic with inner == 1 first blend the row taps over the input
 * columns a chunk reads, when they are at most this many. */
#define CUVIL_RESIZE_BLEND_COLUMNS 4096

enum cuvil_resize_mode {
  CUVIL_RESIZE_NEAREST = 0,
  CUVIL_RESIZE_LINEAR = 1,
  CUVIL_RESIZE_CUBIC = 2
};

/* x as a function of the output coordinate j, with scale s, extents in
 * and out, roi [start, end] (in float arithmetic, as ONNX Runtime):
 *   half_pixel            (j + 0.5) / s - 0.5
 *   half_pixel_symmetric  c (1 - out / (s in)) + (j + 0.5) / s - 0.5, c = in / 2
 *   pytorch_half_pixel    out > 1 ? (j + 0.5) / s - 0.5 : 0
 *   align_corners         out == 1 ? 0 : j (in - 1) / (out - 1)
 *   asymmetric            j / s
 *   tf_half_pixel_for_nn  (j + 0.5) / s
 *   tf_crop_and_resize    out > 1 ? start (in - 1) + j (end - start) (in - 1) / (out - 1)
 *                                 : (start + end) (in - 1) / 2 */
enum cuvil_resize_coordinate {
  CUVIL_RESIZE_HALF_PIXEL = 0,
  CUVIL_RESIZE_HALF_PIXEL_SYMMETRIC = 1,
  CUVIL_RESIZE_PYTORCH_HALF_PIXEL = 2,
  CUVIL_RESIZE_ALIGN_CORNERS = 3,
  CUVIL_RESIZE_ASYMMETRIC = 4,
  CUVIL_RESIZE_TF_HALF_PIXEL_FOR_NN = 5,
  CUVIL_RESIZE_TF_CROP_AND_RESIZE = 6
};

/* How nearest rounds x: halves down, halves up (away from zero), floor,
 * ceil. */
enum cuvil_resize_rounding {
  CUVIL_RESIZE_ROUND_PREFER_FLOOR = 0,
  CUVIL_RESIZE_ROUND_PREFER_CEIL = 1,
  CUVIL_RESIZE_FLOOR = 2,
  CUVIL_RESIZE_CEIL = 3
};

struct cuvil_resize_axis {
  int64_t in, out; /* extents */
  int64_t resized; /* 0: output coordinate j reads input j */
  int64_t window;  /* taps per output coordinate: 1 when not resized or nearest */
  float scale;     /* of the transform; 0: out / in, computed at run time */
  float roi_start, roi_end;
  float unused;
};

struct cuvil_resize_params {
  struct cuvil_resize_axis axis[CUVIL_RESIZE_AXES];
  int64_t inner;
  int64_t mode;       /* cuvil_resize_mode */
  int64_t coordinate; /* cuvil_resize_coordinate */
  int64_t rounding;   /* cuvil_resize_rounding */
  int64_t antialias;
  int64_t exclude_outside;
  int64_t extrapolate; /* tf_crop_and_resize: outside is the extrapolation value */
  int64_t fill_bits;   /* nearest kernels: the extrapolation value in the element type */
  /* Nearest with inner == 1: when > 1, output column j of axis 5 reads
   * input column j / column_repeat (an integer upsampling), written as
   * runs instead of through the column taps. */
  int64_t column_repeat;
  float cubic_a, extrapolation;
};

/* Linear and cubic, f32. Raises `error` check 1 when a resized axis is
 * empty but its output is not. */
CUVIL_KERNEL_DECL void cuvil_resize_f32(const float *x, float *y, int64_t *error,
                                        const struct cuvil_resize_params *p, int64_t begin,
                                        int64_t end);
/* Nearest, by element size. */
#define CUVIL_DECLARE_RESIZE_NEAREST(size, T)                                                      \
  CUVIL_KERNEL_DECL void cuvil_resize_nearest_##size(const T *x, T *y, int64_t *error,             \
                                                     const struct cuvil_resize_params *p,          \
                                                     int64_t begin, int64_t end);
CUVIL_ELEMENT_SIZES(CUVIL_DECLARE_RESIZE_NEAREST)

#endif /* CUVIL_KERNELS_RESIZE_H */
