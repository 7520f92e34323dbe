/* Convolution kernels: the plain NCHW fallback, the blocked NCHWc direct,
 * depthwise and Winograd convolutions and the fused inverted residual
 * block (src/kernels/Conv*.cpp, DepthwiseNCHWc.cpp, WinogradNCHWc.cpp,
 * InvertedResidualNCHWc.cpp, whose header comments give the loop nests and
 * layouts). Each kernel's register tiles are instantiated at build time;
 * the *_TILE_INSTANTIATED predicates say which exist, and lowerings may pick
 * only those (the call check refuses others). */
#ifndef CUVIL_KERNELS_CONV_H
#define CUVIL_KERNELS_CONV_H

#include "cuvil/kernels/Common.h"

/* --- Plain NCHW, any groups: the fallback ------------------------------ */

struct cuvil_conv2d_params {
  int64_t C, M, groups;
  struct cuvil_window2d window;
  struct cuvil_unary activation;
};
CUVIL_KERNEL_DECL void cuvil_conv2d_nchw_f32(const float *x, const float *w, const float *bias,
                                             const float *residual, float *y,
                                             const struct cuvil_conv2d_params *p, int64_t begin,
                                             int64_t end);

/* --- Plain NCDHW 3-D convolution: GEMMs over vol2col panels ------------ */

/* Per image and group, y (M/groups x OD*OH*OW) = w (M/groups x K) times the
 * input under each of the K = C/groups*KD*KH*KW taps of every output pixel,
 * packed 64 pixels and chunk_k taps at a time (never materialised). A task
 * is one (n, group, 64-pixel panel); the register tile is output channels x
 * 16-pixel vectors, one of the GEMM's (CUVIL_GEMM_TILE_INSTANTIATED). */
struct cuvil_conv3d_params {
  int64_t C, M, groups;
  struct cuvil_window3d window;
  struct cuvil_unary activation;
  struct cuvil_tile tile; /* output channels x 16-pixel vectors */
  int64_t chunk_k; /* taps per packed chunk (at most CUVIL_GEMM_MAX_CHUNK_K): it stays in L1 */
};
CUVIL_KERNEL_DECL void cuvil_conv3d_nchw_f32(const float *x, const float *w, const float *bias,
                                             const float *residual, float *y,
                                             const struct cuvil_conv3d_params *p, int64_t begin,
                                             int64_t end);

/* --- Transposed convolution: the col2im scatter after its GEMM ---------- */

/* cols is [N, groups, ID*IH*IW, group_channels*KD*KH*KW] (the GEMM of the
 * input with the weights); y [N, out_channels, OD, OH, OW] gets bias (null:
 * 0) plus, for every input pixel (id, ih, iw) and tap (kd, kh, kw), cols at
 * that pixel and tap added at (id*SD - PF + kd*DD, ih*SH - PT + kh*DH,
 * iw*SW - PL + kw*DW) when inside. 1-D and 2-D ones are 1 x 1 x W and
 * 1 x H x W. A task is one (n, oc) volume. */
struct cuvil_col2im_params {
  int64_t out_channels, group_channels;
  int64_t ID, IH, IW, OD, OH, OW, KD, KH, KW, SD, SH, SW, DD, DH, DW, PF, PT, PL;
};
CUVIL_KERNEL_DECL void cuvil_col2im_f32(const float *cols, const float *bias, float *y,
                                        const struct cuvil_col2im_params *p, int64_t begin,
                                        int64_t end);

/* --- Blocked direct convolution ---------------------------------------- */

/* A tile of P pixels x J blocks exists for P <= 14, J <= 4 and P * J
 * accumulators within 28 16-lane vectors (32 zmm registers) or 12 8-lane
 * ones (16 ymm registers). */
#define CUVIL_CONV_TILE_INSTANTIATED(B, P, J)                                                      \
  ((P) >= 1 && (P) <= 14 && (J) >= 1 && (J) <= 4 && (P) * (J) <= ((B) == 16 ? 28 : 12))

/* A grouped convolution (ONNX group > 1, not depthwise) runs the same
 * tiles: each output block convolves a window of `groups` consecutive input
 * blocks, those holding the input channels of its output channels' groups,
 * with zero weights across groups (packed [OCB, window, KH, KW, B, B]). Its
 * tile covers one output block, whose window the block's first group sets. */
struct cuvil_conv_nchwc_params {
  int64_t groups; /* input groups: channel blocks, or channels when plain_input;
                     a grouped convolution's window of input blocks */
  int64_t OCB;    /* output channel blocks */
  struct cuvil_window2d window;
  struct cuvil_unary activation;
  struct cuvil_tile tile;      /* pixels x output blocks */
  int64_t plain_input;         /* 1: x is plain [N, C, IH, IW] */
  int64_t last_group_channels; /* real channels in the last input block (B when full) */
  int64_t groups_per_step;     /* input groups whose weights one step keeps in L1 */
  int64_t rows_per_run;        /* rows whose partial sums stay in L2 between steps */
  int64_t prefetch_weights;    /* 1: weights stream from memory; fetch a step ahead */
  int64_t rows_outer;          /* 1: tasks ordered rows first (threads split the image) */
  int64_t input_blocks;        /* x's channel blocks (groups, unless grouped) */
  int64_t group_in_channels;   /* grouped: input channels per group; 0: dense */
  int64_t group_out_channels;  /* grouped: output channels per group; 0: dense */
  int64_t border_runs;         /* 1: border pixels in tiles of equal kw range (atrous) */
};

/* The first input block of output block `ocb`'s window: the block of the
 * first input channel of its first group, moved back where the window would
 * run past the input's last block (0 when dense). The packing of the weights
 * and the kernel both place windows by it. */
static inline int64_t cuvil_conv_window_start(int64_t ocb, int64_t block, int64_t group_in_channels,
                                              int64_t group_out_channels, int64_t input_blocks,
                                              int64_t window) {
  if (group_out_channels == 0)
    return 0;
  int64_t start = ocb * block / group_out_channels * group_in_channels / block;
  return start + window > input_blocks ? input_blocks - window : start;
}
CUVIL_DECLARE_BLOCKED_KERNELS(conv,
                              (const float *x, const float *w, const float *bias, const float *res,
                               float *y, const struct cuvil_conv_nchwc_params *p, int64_t begin,
                               int64_t end))

/* --- Blocked depthwise convolution ------------------------------------- */

/* Interior tiles of 1 to 8 pixels; reuse_inputs (the 3-tap form) needs a
 * 3-wide undilated window at stride 1 or 2. */
#define CUVIL_DWCONV_TILE_INSTANTIATED(P) ((P) >= 1 && (P) <= 8)
#define CUVIL_DWCONV_REUSE_INSTANTIATED(KW, SW, DW)                                                \
  ((KW) == 3 && (DW) == 1 && ((SW) == 1 || (SW) == 2))

struct cuvil_dwconv_nchwc_params {
  int64_t CB; /* channel blocks */
  int64_t tile_pixels;
  struct cuvil_window2d window;
  struct cuvil_unary activation;
  int64_t reuse_inputs; /* 1: interior tiles load each input vector once for all taps */
};
CUVIL_DECLARE_BLOCKED_KERNELS(dwconv,
                              (const float *x, const float *w, const float *bias, const float *res,
                               float *y, const struct cuvil_dwconv_nchwc_params *p, int64_t begin,
                               int64_t end))

/* --- Winograd F(4x4, 3x3) ---------------------------------------------- */

/* The product's register tile: P tiles x J output blocks, P <= 8, J <= 4,
 * within 24 accumulators (16-lane blocks) or 12 (8-lane blocks). */
#define CUVIL_WINOGRAD_MAX_ACCUMULATORS(B) ((B) == 16 ? 24 : 12)
#define CUVIL_WINOGRAD_TILE_INSTANTIATED(B, P, J)                                                  \
  ((P) >= 1 && (P) <= 8 && (J) >= 1 && (J) <= 4 && (P) * (J) <= CUVIL_WINOGRAD_MAX_ACCUMULATORS(B))

struct cuvil_winograd_params {
  int64_t ICB, OCB;
  struct cuvil_window2d window; /* 3x3, stride 1: extents and pads */
  int64_t tiles_h, tiles_w;     /* 4x4 output tiles */
  struct cuvil_tile tile;       /* the product's: tiles x output blocks */
  struct cuvil_unary activation;
  int64_t tasks_per_image;
  int64_t half_vectors;     /* 1: transform 8-lane halves of 16-lane blocks (256-bit registers) */
  int64_t run_tiles;        /* T: tiles multiplied at once */
  int64_t ocb_parts;        /* tasks per tile share, each with a share of the output blocks */
  int64_t shared_input;     /* 1: V of whole images, transformed beforehand by winograd_input */
  int64_t images;           /* N */
  int64_t input_tasks;      /* winograd_input's tasks per image */
  int64_t prefetch_weights; /* 1: U streams from memory; fetch the next position's slice ahead */
};
CUVIL_DECLARE_BLOCKED_KERNELS(winograd_input,
                              (const float *x, float *scratch,
                               const struct cuvil_winograd_params *p, int64_t begin, int64_t end))
CUVIL_DECLARE_BLOCKED_KERNELS(winograd,
                              (const float *x, const float *u, const float *bias, const float *res,
                               float *y, float *scratch, const struct cuvil_winograd_params *p,
                               int64_t begin, int64_t end))

/* --- The inverted residual block --------------------------------------- */

/* Its expansion and projection run the direct convolution's tiles
 * (CUVIL_CONV_TILE_INSTANTIATED), its depthwise stage the depthwise ones. */
struct cuvil_inverted_residual_params {
  /* The expansion: x's groups (blocks, or channels when plain), the window
   * from x to e (IH/IW x's extent, OH/OW e's), its tile and activation. */
  int64_t expand; /* 1 when the block has an expansion */
  int64_t XG;
  int64_t plain_input;
  int64_t input_last_channels; /* real channels in x's last block */
  struct cuvil_window2d expand_window;
  struct cuvil_tile expand_tile;
  struct cuvil_unary expand_activation;
  /* The depthwise stage over e (IH/IW e's extent, OH/OW y's). */
  int64_t ECB;
  int64_t expanded_last_channels; /* real channels in e's last block */
  struct cuvil_window2d depthwise_window;
  int64_t depthwise_tile_pixels;
  int64_t depthwise_reuse; /* its interior tiles load each input vector once */
  struct cuvil_unary depthwise_activation;
  /* The 1x1 projection. */
  int64_t OCB;
  struct cuvil_tile project_tile;
  struct cuvil_unary project_activation;
  /* Scratch: tasks per image, output rows per band (D's rows), E's rows
   * (the e rows of a full band) and the floats of one task's slot. */
  int64_t parts, band_rows, expanded_rows, slot_floats;
};
CUVIL_DECLARE_BLOCKED_KERNELS(inverted_residual,
                              (const float *x, const float *we, const float *be, const float *wd,
                               const float *bd, const float *wp, const float *bp, const float *res,
                               float *y, float *scratch,
                               const struct cuvil_inverted_residual_params *p, int64_t begin,
                               int64_t end))

#endif /* CUVIL_KERNELS_CONV_H */
