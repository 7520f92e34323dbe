// GridSample, RoiAlign, MaxRoiPool and DeformConv's columns: images sampled
// at computed points.
//
// GridSample, a task per output row (n, od, oh), kLanes points at a time:
//   per axis and lane: the coordinate, its taps (index, weight), each index
//     padded (zeros: -1, a tap that reads nothing and counts 0)
//   the lane's taps over all axes: offsets and products of weights
//   for c: y[n, c, od, oh, ow + lane] = sum over taps of w * x[n, c, offset]
// so the coordinates are computed once for all channels, and the channel
// loop runs over lanes (gathers, then a contiguous store).
//
// RoiAlign, a task per row of bins (r, ph) of one roi:
//   for pw, for each sampling point (iy, ix) of the bin:
//     its bilinear corners and weights (all 0 outside the map)
//     for c: y[r, c, ph, pw] += (or max=) the point's value
//   avg: y /= the point count
//
// MaxRoiPool, a task per row of bins (r, ph) of one roi:
//   rows [h0, h1) of the bin, clipped to the map
//   for pw: columns [w0, w1), clipped; for c: y[r, c, ph, pw] = max over the
//     window (0 when it is empty)
//
// DeformConv's columns (x channels last), a task per output row (n, oh):
//   for ow, og, tap: the moved point's corners and weights (times the mask)
//     for c of og: cols[n, c / Cg, oh * OW + ow, tap * Cg + c % Cg] =
//       the weighted corners' channels c   (contiguous runs: vector FMAs)
#include "Vector.h"

#include "cuvil/kernels/Sampling.h"

using namespace cuvil::kernels;

namespace {

constexpr int64_t kLanes = 8;
constexpr int64_t kMaxAxisTaps = 4;
constexpr int64_t kMaxTaps = 16; // cubic is 2-D only: 4 x 4; linear 3-D: 2 x 2 x 2

// Coordinates are clamped to +-2^30 before they become indices: far
// enough that padding decides the same, and no NaN or overflow reaches an
// integer.
constexpr float kCoordinateLimit = 1073741824.0f;

struct AxisTaps {
  int64_t index[kMaxAxisTaps][kLanes];
  float weight[kMaxAxisTaps][kLanes];
};

CUVIL_INLINE int64_t axisTapCount(int64_t mode) {
  return mode == CUVIL_GRID_SAMPLE_NEAREST ? 1 : mode == CUVIL_GRID_SAMPLE_LINEAR ? 2 : 4;
}

// Keys' cubic convolution weights (a = -0.75) of the 4 taps around a point
// t in [0, 1) past the second one.
CUVIL_INLINE void cubicWeights(float t, float (&w)[4]) {
  constexpr float A = -0.75f;
  const float t1 = t + 1.0f, s = 1.0f - t, s1 = 2.0f - t;
  w[0] = ((A * t1 - 5.0f * A) * t1 + 8.0f * A) * t1 - 4.0f * A;
  w[1] = ((A + 2.0f) * t - (A + 3.0f)) * t * t + 1.0f;
  w[2] = ((A + 2.0f) * s - (A + 3.0f)) * s * s + 1.0f;
  w[3] = ((A * s1 - 5.0f * A) * s1 + 8.0f * A) * s1 - 4.0f * A;
}

// Index i reflected into [0, extent): about the edge pixels with
// align_corners, else about the image's borders (half a pixel further).
CUVIL_INLINE int64_t reflect(int64_t i, int64_t extent, bool alignCorners) {
  const int64_t period = alignCorners ? 2 * (extent - 1) : 2 * extent;
  if (period == 0)
    return 0;
  int64_t m = i % period;
  m = m < 0 ? m + period : m;
  if (alignCorners)
    return m <= extent - 1 ? m : period - m;
  return m < extent ? m : period - 1 - m;
}

// The taps of `lanes` grid points along one axis of `extent` pixels; g
// holds the points' normalised coordinates, `step` apart.
CUVIL_INLINE void axisTaps(const float *g, int64_t step, int64_t lanes, int64_t extent,
                           const cuvil_grid_sample_params *p, AxisTaps &taps) {
  const bool align = p->align_corners != 0;
  const int64_t count = axisTapCount(p->mode);
  for (int64_t lane = 0; lane < lanes; ++lane) {
    const float n = g[lane * step];
    float coordinate =
        align ? (n + 1.0f) / 2.0f * float(extent - 1) : ((n + 1.0f) * float(extent) - 1.0f) / 2.0f;
    coordinate = minf(maxf(coordinate, -kCoordinateLimit), kCoordinateLimit);
    if (p->mode == CUVIL_GRID_SAMPLE_NEAREST) {
      taps.index[0][lane] = int64_t(__builtin_elementwise_roundeven(coordinate));
      taps.weight[0][lane] = 1.0f;
      continue;
    }
    const float floor = __builtin_floorf(coordinate);
    const int64_t first = int64_t(floor);
    if (p->mode == CUVIL_GRID_SAMPLE_LINEAR) {
      taps.index[0][lane] = first;
      taps.index[1][lane] = first + 1;
      taps.weight[0][lane] = floor + 1.0f - coordinate;
      taps.weight[1][lane] = coordinate - floor;
      continue;
    }
    float w[4];
    cubicWeights(coordinate - floor, w);
    for (int64_t k = 0; k < 4; ++k) {
      taps.index[k][lane] = first - 1 + k;
      taps.weight[k][lane] = w[k];
    }
  }
  for (int64_t k = 0; k < count; ++k)
    for (int64_t lane = 0; lane < lanes; ++lane) {
      const int64_t i = taps.index[k][lane];
      const bool inside = i >= 0 && i < extent;
      if (p->padding == CUVIL_GRID_SAMPLE_ZEROS)
        taps.index[k][lane] = inside ? i : -1;
      else if (p->padding == CUVIL_GRID_SAMPLE_BORDER)
        taps.index[k][lane] = i < 0 ? 0 : (i >= extent ? extent - 1 : i);
      else
        taps.index[k][lane] = inside ? i : reflect(i, extent, align);
    }
}

} // namespace

CUVIL_KERNEL void cuvil_grid_sample_f32(const float *x, const float *grid, float *y,
                                        const cuvil_grid_sample_params *p, int64_t begin,
                                        int64_t end) {
  const int64_t C = p->channels, spatial = p->spatial;
  const int64_t D = p->in_depth, H = p->in_height, W = p->in_width;
  const int64_t OD = p->out_depth, OH = p->out_height, OW = p->out_width;
  const int64_t axisTapsCount = axisTapCount(p->mode);
  const int64_t depthTaps = spatial == 3 ? axisTapsCount : 1;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t n = task / (OD * OH), row = task % (OD * OH);
    const float *xn = x + n * C * D * H * W;
    float *yRow = y + n * C * OD * OH * OW + row * OW;
    if (D * H * W == 0) { // nothing to sample, nothing to read
      for (int64_t c = 0; c < C; ++c)
        for (int64_t ow = 0; ow < OW; ++ow)
          yRow[c * OD * OH * OW + ow] = 0.0f;
      continue;
    }
    for (int64_t ow = 0; ow < OW; ow += kLanes) {
      const int64_t lanes = OW - ow < kLanes ? OW - ow : kLanes;
      const float *g = grid + (task * OW + ow) * spatial;
      AxisTaps across, down, deep;
      axisTaps(g, spatial, lanes, W, p, across);
      axisTaps(g + 1, spatial, lanes, H, p, down);
      if (spatial == 3)
        axisTaps(g + 2, spatial, lanes, D, p, deep);
      int64_t offset[kMaxTaps][kLanes];
      float weight[kMaxTaps][kLanes];
      int64_t taps = 0;
      for (int64_t kz = 0; kz < depthTaps; ++kz)
        for (int64_t ky = 0; ky < axisTapsCount; ++ky)
          for (int64_t kx = 0; kx < axisTapsCount; ++kx, ++taps)
            for (int64_t lane = 0; lane < lanes; ++lane) {
              const int64_t iz = spatial == 3 ? deep.index[kz][lane] : 0;
              const int64_t iy = down.index[ky][lane], ix = across.index[kx][lane];
              const float wz = spatial == 3 ? deep.weight[kz][lane] : 1.0f;
              offset[taps][lane] = iz < 0 || iy < 0 || ix < 0 ? -1 : (iz * H + iy) * W + ix;
              weight[taps][lane] = wz * down.weight[ky][lane] * across.weight[kx][lane];
            }
      for (int64_t c = 0; c < C; ++c) {
        const float *plane = xn + c * D * H * W;
        float sum[kLanes] = {};
        for (int64_t k = 0; k < taps; ++k)
          for (int64_t lane = 0; lane < lanes; ++lane) {
            const int64_t at = offset[k][lane];
            sum[lane] += at < 0 ? 0.0f : weight[k][lane] * plane[at];
          }
        float *out = yRow + c * OD * OH * OW + ow;
        for (int64_t lane = 0; lane < lanes; ++lane)
          out[lane] = sum[lane];
      }
    }
  }
}

namespace {

// A sampling point's bilinear corners (offsets into a plane) and weights.
struct Bilinear {
  int64_t at[4];
  float w[4];
};

// ONNX Runtime's rule: beyond a pixel outside the map the point counts 0
// (weights 0, offsets 0); within it, it is clamped onto the edge.
CUVIL_INLINE Bilinear bilinear(float yy, float xx, int64_t H, int64_t W) {
  if (!(yy >= -1.0f && yy <= float(H) && xx >= -1.0f && xx <= float(W)))
    return Bilinear{{0, 0, 0, 0}, {0.0f, 0.0f, 0.0f, 0.0f}};
  yy = yy <= 0.0f ? 0.0f : yy;
  xx = xx <= 0.0f ? 0.0f : xx;
  int64_t yLow = int64_t(yy), xLow = int64_t(xx), yHigh = yLow + 1, xHigh = xLow + 1;
  if (yLow >= H - 1) {
    yLow = yHigh = H - 1;
    yy = float(yLow);
  }
  if (xLow >= W - 1) {
    xLow = xHigh = W - 1;
    xx = float(xLow);
  }
  const float ly = yy - float(yLow), lx = xx - float(xLow), hy = 1.0f - ly, hx = 1.0f - lx;
  return Bilinear{{yLow * W + xLow, yLow * W + xHigh, yHigh * W + xLow, yHigh * W + xHigh},
                  {hy * hx, hy * lx, ly * hx, ly * lx}};
}

// Sampling points per side of a bin: the ratio, or the roi's extent over
// the bins rounded up (clamped so that no NaN or overflow becomes a count).
CUVIL_INLINE int64_t gridSide(int64_t ratio, float extent, int64_t bins) {
  if (ratio > 0)
    return ratio;
  const float side = __builtin_ceilf(extent / float(bins));
  return side > 0.0f ? int64_t(minf(side, kCoordinateLimit)) : 0;
}

} // namespace

CUVIL_KERNEL void cuvil_roi_align_f32(const float *x, const float *rois,
                                      const int64_t *batch_indices, float *y, int64_t *error,
                                      const cuvil_roi_align_params *p, int64_t begin, int64_t end) {
  const int64_t C = p->channels, H = p->height, W = p->width;
  const int64_t PH = p->pooled_height, PW = p->pooled_width;
  const bool isMax = p->max_mode != 0, halfPixel = p->half_pixel != 0;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t r = task / PH, ph = task % PH, image = batch_indices[r];
    if (image < 0 || image >= p->batch)
      return raiseError(error, 1, image);
    const float *roi = rois + r * 4;
    const float offset = halfPixel ? 0.5f : 0.0f;
    const float startW = roi[0] * p->spatial_scale - offset;
    const float startH = roi[1] * p->spatial_scale - offset;
    float roiW = roi[2] * p->spatial_scale - offset - startW;
    float roiH = roi[3] * p->spatial_scale - offset - startH;
    if (!halfPixel) {
      roiW = maxf(roiW, 1.0f);
      roiH = maxf(roiH, 1.0f);
    }
    const float binH = roiH / float(PH), binW = roiW / float(PW);
    const int64_t gridH = gridSide(p->sampling_ratio, roiH, PH);
    const int64_t gridW = gridSide(p->sampling_ratio, roiW, PW);
    // An empty map has nothing to read: every bin is 0.
    const int64_t points = H * W == 0 ? 0 : gridH * gridW;
    const float *xImage = x + image * C * H * W;
    float *yRow = y + r * C * PH * PW + ph * PW;
    for (int64_t pw = 0; pw < PW; ++pw) {
      for (int64_t c = 0; c < C; ++c)
        yRow[c * PH * PW + pw] = 0.0f;
      for (int64_t iy = 0; iy < (points ? gridH : 0); ++iy) {
        const float yy = startH + float(ph) * binH + (float(iy) + 0.5f) * binH / float(gridH);
        for (int64_t ix = 0; ix < gridW; ++ix) {
          const float xx = startW + float(pw) * binW + (float(ix) + 0.5f) * binW / float(gridW);
          const Bilinear b = bilinear(yy, xx, H, W);
          const bool first = iy == 0 && ix == 0;
          for (int64_t c = 0; c < C; ++c) {
            const float *plane = xImage + c * H * W;
            float &out = yRow[c * PH * PW + pw];
            if (isMax) {
              const float v = maxf(maxf(b.w[0] * plane[b.at[0]], b.w[1] * plane[b.at[1]]),
                                   maxf(b.w[2] * plane[b.at[2]], b.w[3] * plane[b.at[3]]));
              out = first ? v : maxf(out, v);
            } else {
              out += b.w[0] * plane[b.at[0]] + b.w[1] * plane[b.at[1]] + b.w[2] * plane[b.at[2]] +
                     b.w[3] * plane[b.at[3]];
            }
          }
        }
      }
      if (!isMax && points > 0)
        for (int64_t c = 0; c < C; ++c)
          yRow[c * PH * PW + pw] /= float(points);
    }
  }
}

namespace {

// C's round(): half away from zero (Caffe's and ONNX Runtime's rounding of
// roi corners), within +-2^30.
CUVIL_INLINE int64_t roundHalfAway(float v) {
  const float clamped = minf(maxf(v, -kCoordinateLimit), kCoordinateLimit);
  const float whole = __builtin_truncf(clamped), fraction = clamped - whole;
  return int64_t(whole) + (fraction >= 0.5f ? 1 : fraction <= -0.5f ? -1 : 0);
}

CUVIL_INLINE int64_t clampIndex(int64_t v, int64_t extent) {
  return v < 0 ? 0 : v > extent ? extent : v;
}

} // namespace

CUVIL_KERNEL void cuvil_max_roi_pool_f32(const float *x, const float *rois, float *y,
                                         int64_t *error, const cuvil_max_roi_pool_params *p,
                                         int64_t begin, int64_t end) {
  const int64_t C = p->channels, H = p->height, W = p->width;
  const int64_t PH = p->pooled_height, PW = p->pooled_width;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t r = task / PH, ph = task % PH;
    const float *roi = rois + r * 5;
    // NaN fails both comparisons.
    if (!(roi[0] > -1.0f && roi[0] < float(p->batch)))
      return raiseError(error, 1, roundHalfAway(roi[0]));
    const int64_t image = int64_t(roi[0]);
    const int64_t startW = roundHalfAway(roi[1] * p->spatial_scale);
    const int64_t startH = roundHalfAway(roi[2] * p->spatial_scale);
    const int64_t endW = roundHalfAway(roi[3] * p->spatial_scale);
    const int64_t endH = roundHalfAway(roi[4] * p->spatial_scale);
    const int64_t roiH = endH - startH + 1 > 1 ? endH - startH + 1 : 1;
    const int64_t roiW = endW - startW + 1 > 1 ? endW - startW + 1 : 1;
    const float binH = float(roiH) / float(PH), binW = float(roiW) / float(PW);
    const int64_t h0 = clampIndex(int64_t(__builtin_floorf(float(ph) * binH)) + startH, H);
    const int64_t h1 = clampIndex(int64_t(__builtin_ceilf(float(ph + 1) * binH)) + startH, H);
    const float *xImage = x + image * C * H * W;
    float *yRow = y + r * C * PH * PW + ph * PW;
    for (int64_t pw = 0; pw < PW; ++pw) {
      const int64_t w0 = clampIndex(int64_t(__builtin_floorf(float(pw) * binW)) + startW, W);
      const int64_t w1 = clampIndex(int64_t(__builtin_ceilf(float(pw + 1) * binW)) + startW, W);
      const bool empty = h1 <= h0 || w1 <= w0;
      for (int64_t c = 0; c < C; ++c) {
        const float *plane = xImage + c * H * W;
        // From the lowest finite float, as ONNX Runtime: NaNs are skipped.
        float best = empty ? 0.0f : -3.40282347e38f;
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w)
            best = plane[h * W + w] > best ? plane[h * W + w] : best;
        yRow[c * PH * PW + pw] = best;
      }
    }
  }
}

namespace {

// GridSample's bilinear with zeros padding (DeformConv's, as ONNX's
// reference and ONNX Runtime sample): a corner outside the map counts 0 and
// is not read (its index is -1), so a point a pixel or more outside, or NaN,
// reads nothing. `whole` when all four corners are inside.
struct PaddedBilinear {
  int64_t at[4];
  float w[4];
  bool whole;
};

CUVIL_INLINE PaddedBilinear zeroPaddedBilinear(float yy, float xx, int64_t H, int64_t W) {
  PaddedBilinear b{{-1, -1, -1, -1}, {0.0f, 0.0f, 0.0f, 0.0f}, false};
  if (!(yy > -1.0f && yy < float(H) && xx > -1.0f && xx < float(W)))
    return b;
  const float fy = __builtin_floorf(yy), fx = __builtin_floorf(xx);
  const int64_t rows[2] = {int64_t(fy), int64_t(fy) + 1};
  const int64_t columns[2] = {int64_t(fx), int64_t(fx) + 1};
  const float ly = yy - fy, lx = xx - fx;
  const float wy[2] = {1.0f - ly, ly}, wx[2] = {1.0f - lx, lx};
  int64_t inside = 0;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < 2; ++c)
      if (rows[r] >= 0 && rows[r] < H && columns[c] >= 0 && columns[c] < W) {
        b.at[r * 2 + c] = rows[r] * W + columns[c];
        b.w[r * 2 + c] = wy[r] * wx[c];
        ++inside;
      }
  b.whole = inside == 4;
  return b;
}

// dst[c] = the point's weighted corners, each a run of `count` channels
// (channels last) at its index times `stride`; corners outside are not read.
CUVIL_INLINE void sampleChannels(const PaddedBilinear &b, const float *image, int64_t stride,
                                 int64_t count, float *__restrict dst) {
  if (b.whole) {
    const float *__restrict c0 = image + b.at[0] * stride, *__restrict c1 =
                                                               image + b.at[1] * stride;
    const float *__restrict c2 = image + b.at[2] * stride, *__restrict c3 =
                                                               image + b.at[3] * stride;
    for (int64_t c = 0; c < count; ++c)
      dst[c] = b.w[0] * c0[c] + b.w[1] * c1[c] + b.w[2] * c2[c] + b.w[3] * c3[c];
    return;
  }
  for (int64_t c = 0; c < count; ++c)
    dst[c] = 0.0f;
  for (int64_t k = 0; k < 4; ++k)
    if (b.at[k] >= 0) {
      const float *__restrict corner = image + b.at[k] * stride;
      for (int64_t c = 0; c < count; ++c)
        dst[c] += b.w[k] * corner[c];
    }
}

} // namespace

CUVIL_KERNEL void cuvil_deform_im2col_f32(const float *x, const float *offset, const float *mask,
                                          float *cols, const cuvil_deform_im2col_params *p,
                                          int64_t begin, int64_t end) {
  const int64_t C = p->channels, H = p->height, W = p->width, OH = p->out_height, OW = p->out_width;
  const int64_t KW = p->kernel_width, taps = p->kernel_height * KW, pixels = OH * OW;
  const int64_t OG = p->offset_groups, groupChannels = C / p->groups, ogChannels = C / OG;
  const int64_t rowWidth = taps * groupChannels;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t n = task / OH, oh = task % OH;
    const float *image = x + n * H * W * C;
    for (int64_t ow = 0; ow < OW; ++ow) {
      const int64_t pixel = oh * OW + ow;
      for (int64_t og = 0; og < OG; ++og)
        for (int64_t tap = 0; tap < taps; ++tap) {
          const int64_t i = tap / KW, j = tap % KW;
          const float *dy = offset + ((n * OG + og) * 2 * taps + 2 * tap) * pixels + pixel;
          const float y0 = float(oh * p->stride_height - p->pad_top + i * p->dilation_height);
          const float x0 = float(ow * p->stride_width - p->pad_left + j * p->dilation_width);
          PaddedBilinear point = zeroPaddedBilinear(y0 + dy[0], x0 + dy[pixels], H, W);
          if (mask) {
            const float scale = mask[((n * OG + og) * taps + tap) * pixels + pixel];
            for (float &w : point.w)
              w *= scale;
          }
          // The offset group's channels, one run per group they fall in.
          for (int64_t c = og * ogChannels; c < (og + 1) * ogChannels;) {
            const int64_t g = c / groupChannels, cl = c % groupChannels;
            const int64_t left = (og + 1) * ogChannels - c;
            const int64_t run = groupChannels - cl < left ? groupChannels - cl : left;
            sampleChannels(point, image + c, C, run,
                           cols + ((n * p->groups + g) * pixels + pixel) * rowWidth +
                               tap * groupChannels + cl);
            c += run;
          }
        }
    }
  }
}
