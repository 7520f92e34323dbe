/* Sampling images at computed points: GridSample, RoiAlign, MaxRoiPool and
 * DeformConv's columns (src/kernels/Sampling.cpp). */
#ifndef CUVIL_KERNELS_SAMPLING_H
#define CUVIL_KERNELS_SAMPLING_H

#include "cuvil/kernels/Common.h"

enum cuvil_grid_sample_mode {
  CUVIL_GRID_SAMPLE_LINEAR = 0,
  CUVIL_GRID_SAMPLE_NEAREST = 1,
  CUVIL_GRID_SAMPLE_CUBIC = 2
};
enum cuvil_grid_sample_padding {
  CUVIL_GRID_SAMPLE_ZEROS = 0,
  CUVIL_GRID_SAMPLE_BORDER = 1,
  CUVIL_GRID_SAMPLE_REFLECTION = 2
};

/* GridSample of x [N, C, D, H, W] at the points of grid [N, OD, OH, OW,
 * spatial] ((x, y) or (x, y, z), each normalised to [-1, 1]; 2-D images
 * have D = OD = 1 and spatial 2). Along each axis the point's coordinate is
 *   align_corners ? (g + 1) / 2 * (extent - 1) : ((g + 1) * extent - 1) / 2
 * and its taps are: nearest, the coordinate rounded half to even; linear,
 * floor and floor + 1; cubic, floor - 1 to floor + 2 with Keys' weights
 * (a = -0.75). Each tap's index is padded: zeros (outside: weight 0),
 * border (clamped) or reflection (reflected about the edge pixels, or
 * without align_corners about the image's borders). A point's value is the
 * weighted sum over the taps of its axes. A task is one output row
 * (n, od, oh). */
struct cuvil_grid_sample_params {
  int64_t channels, spatial;
  int64_t in_depth, in_height, in_width;
  int64_t out_depth, out_height, out_width;
  int64_t mode;    /* cuvil_grid_sample_mode */
  int64_t padding; /* cuvil_grid_sample_padding */
  int64_t align_corners, unused;
};
CUVIL_KERNEL_DECL void cuvil_grid_sample_f32(const float *x, const float *grid, float *y,
                                             const struct cuvil_grid_sample_params *p,
                                             int64_t begin, int64_t end);

/* RoiAlign: roi r of rois [R, 4] (x1, y1, x2, y2, times spatial_scale,
 * minus 0.5 with half_pixel; without it at least 1 x 1) over image
 * batch_indices[r] of x [N, C, H, W] is split into pooled_height x
 * pooled_width bins; each bin samples a grid of points (sampling_ratio a
 * side, or with 0 ceil(roi extent / bins)) at the centres of its cells,
 * each interpolated bilinearly (a point more than a pixel outside the map
 * counts 0, one within a pixel of it reads the edge), and y[r, c, bin] is
 * their mean, or in max mode the largest weighted corner of any point, as
 * ONNX Runtime computes it. A batch index outside [0, N) raises check 1 of
 * `error`. A task is one row of bins of one roi (r, ph). */
struct cuvil_roi_align_params {
  int64_t batch, channels, height, width;
  int64_t pooled_height, pooled_width;
  int64_t sampling_ratio, max_mode;
  int64_t half_pixel, unused;
  float spatial_scale, unused_scale;
};
CUVIL_KERNEL_DECL void cuvil_roi_align_f32(const float *x, const float *rois,
                                           const int64_t *batch_indices, float *y, int64_t *error,
                                           const struct cuvil_roi_align_params *p, int64_t begin,
                                           int64_t end);

/* MaxRoiPool (Caffe's RoI pooling, as ONNX Runtime computes it): roi r of
 * rois [R, 5] (batch index, x1, y1, x2, y2) is scaled by spatial_scale and
 * rounded half away from zero to pixels; its extent (end - start + 1, at
 * least 1) is split into pooled_height x pooled_width bins, bin (ph, pw)
 * covering rows [start + floor(ph * h / PH), start + ceil((ph + 1) * h /
 * PH)) clipped to the map (likewise columns), and y[r, c, ph, pw] is the
 * largest value of x[batch index, c] in it, 0 for an empty bin. A batch
 * index (truncated) outside [0, N) raises check 1 of `error`. A task is
 * one row of bins of one roi (r, ph). */
struct cuvil_max_roi_pool_params {
  int64_t batch, channels, height, width;
  int64_t pooled_height, pooled_width;
  float spatial_scale, unused_scale;
};
CUVIL_KERNEL_DECL void cuvil_max_roi_pool_f32(const float *x, const float *rois, float *y,
                                              int64_t *error,
                                              const struct cuvil_max_roi_pool_params *p,
                                              int64_t begin, int64_t end);

/* DeformConv's columns (canonicalize rewrites DeformConv into these and a
 * GEMM), from x channels last [N, H, W, C]: output pixel (oh, ow)'s tap
 * (i, j) of offset group og samples the point
 *   y = oh * SH - PT + i * DH + offset[n, og * 2 * taps + 2 * tap, oh, ow]
 *   x = ow * SW - PL + j * DW + offset[n, og * 2 * taps + 2 * tap + 1, oh, ow]
 * bilinearly from every channel c of that offset group (each corner outside
 * the map counts 0, as GridSample's zeros padding), times mask[n, og * taps
 * + tap, oh, ow] when there is a mask, into
 *   cols[n, g, oh * OW + ow, tap * C / groups + cl]   c = g * C / groups + cl
 * A task is one output row (n, oh). */
struct cuvil_deform_im2col_params {
  int64_t channels, height, width, out_height, out_width;
  int64_t kernel_height, kernel_width, stride_height, stride_width;
  int64_t dilation_height, dilation_width, pad_top, pad_left;
  int64_t groups, offset_groups, unused;
};
CUVIL_KERNEL_DECL void cuvil_deform_im2col_f32(const float *x, const float *offset,
                                               const float *mask, float *cols,
                                               const struct cuvil_deform_im2col_params *p,
                                               int64_t begin, int64_t end);

#endif /* CUVIL_KERNELS_SAMPLING_H */
