// Direct convolution in the blocked NCHWc layout, the workhorse of CNNs.
//
// Layouts (B = 16 or 8 channels per block):
//   x: [N, ICB, IH, IW, B]  (or plain [N, C, IH, IW] for a first layer with
//                             few channels: no reorder needed)
//   w: [OCB, ICB, KH, KW, B(ic), B(oc)]  (plain input: [OCB, C, KH, KW, B(oc)];
//                                          grouped: [OCB, window, KH, KW, B, B])
//   y, residual: [N, OCB, OH, OW, B]; bias: [OCB * B]
//
// A task is one output row of J output-channel blocks; a thread takes a run
// of consecutive rows. The input groups (ic blocks, or channels when plain)
// are taken GK at a time, so that the weights of one step stay in L1 while
// every row of the run uses them (the GotoBLAS idea: loaded from L2 or
// memory once per row, 64 bytes of weights per P FMAs, they held ResNet-50's
// 7x7 3x3 convolution to 1.46 ms on a full-rate AVX-512 core, against
// 1.175 ms from L1). Each row is cut into register tiles of
// P pixels x J blocks (P*J accumulators, one vector of B lanes each):
//   for g0 in steps of GK input groups:
//     for oh in the run's rows, for each tile of the row:
//       acc[p][j] = g0 == 0 ? bias[ocb+j] : y[ocb+j][oh][ow+p][:]
//       for g in [g0, g0 + GK):
//         for kh with ih inside, kw:
//           for c in channels of g:
//             wv[j] = w[ocb+j][g][kh][kw][c][:]           (J vector loads)
//             for p: xv = broadcast x[g][ih][iw(p, kw)][c]  (P broadcasts)
//                    acc[p][j] += xv * wv[j]               (P*J FMAs)
//       y[ocb+j][oh][ow+p][:] = last step ? act(acc[p][j] + residual[...])
//                                         : acc[p][j]
// Pixels whose window leaves the input (left/right padding) are done one at a
// time with the kw range clipped; everything else takes the full tile. A
// grouped convolution's tile has one output block (J = 1), and its groups g
// are those of the block's window, from cuvil_conv_window_start.
#include "ConvNCHWcTile.h"

using namespace cuvil::kernels;
using namespace cuvil::kernels::conv_nchwc;

namespace {

using Params = cuvil_conv_nchwc_params;

template <int B> CUVIL_INLINE Geometry geometry(const Params &p) {
  Geometry g = windowGeometry<B>(p.groups, p.OCB, p.window, p.plain_input != 0,
                                 p.last_group_channels, p.groups_per_step);
  g.ICB = p.input_blocks;
  g.groupIn = p.group_in_channels;
  g.groupOut = p.group_out_channels;
  g.borderRuns = p.border_runs != 0;
  return withSteps<B>(g, p.plain_input != 0);
}

// The weights of the step after the one of output blocks [ocb, ocb + J)
// and input groups [g0, g1): the same blocks' next groups, or the next
// output group's first ones. They are fetched over the taps the tiles of
// `rows` rows go through in this step.
CUVIL_INLINE WeightPrefetch nextStepWeights(const Geometry &g, const float *w, int64_t ocb,
                                            int64_t J, int64_t g0, int64_t g1, int64_t rows,
                                            int64_t tileP) {
  int64_t nextOcb = ocb, nextG0 = g1;
  if (g1 == g.G) {
    nextOcb = ocb + J;
    nextG0 = 0;
  }
  // Past the last group there is nothing left to fetch.
  const int64_t left = g.OCB - nextOcb > 0 ? g.OCB - nextOcb : 0;
  const int64_t blocks = left < J ? left : J;
  const int64_t nextG1 = nextG0 + g.GK < g.G ? nextG0 + g.GK : g.G;
  const int64_t bytes = int64_t(sizeof(float)) * (nextG1 - nextG0) * g.bG;
  const int64_t taps = rows * ((g.win.OW + tileP - 1) / tileP) * (g1 - g0) * g.win.KH * g.win.KW;
  const int64_t lines = blocks * bytes / 64;
  return {reinterpret_cast<const char *>(w + nextOcb * g.bJ + nextG0 * g.bG),
          int64_t(sizeof(float)) * g.bJ, bytes, blocks, (lines + taps - 1) / taps};
}

// Rows [oh0, oh0 + rows) of output group `group` (blocks from group * J) of
// image n, in steps of GK input groups; the rows of y hold the partial sums
// between steps.
template <int B>
CUVIL_INLINE void convRun(const Geometry &g, const Params &p, const float *x, const float *w,
                          const float *bias, const float *res, float *y, int64_t n, int64_t group,
                          int64_t oh0, int64_t rows) {
  const int64_t J = p.tile.blocks;
  const int64_t blocks = g.OCB - group * J < J ? g.OCB - group * J : J;
  const float *xn = x + n * g.xImage;
  float *yn = y + n * g.yImage;
  const float *rn = res ? res + n * g.yImage : nullptr;
  const int64_t x0 = windowStart<B>(g, group * J);
  for (int64_t g0 = 0; g0 < g.G; g0 += g.GK) {
    const int64_t g1 = g0 + g.GK < g.G ? g0 + g.GK : g.G;
    WeightPrefetch prefetch = nextStepWeights(g, w, group * J, J, g0, g1, rows, p.tile.pixels);
    WeightPrefetch *fetch = p.prefetch_weights ? &prefetch : nullptr;
    const Step s{group * J, g0, g1, g0 > 0, g1 == g.G, 0, fetch, x0};
    for (int64_t oh = oh0; oh < oh0 + rows; ++oh)
      rowOf<B>(blocks, g, p.tile.pixels, xn, w, bias, rn, yn, s, oh, p.activation);
  }
}

// Tasks: (n, output group of tile.blocks blocks, oh), oh fastest: a
// thread's range is runs of at most rows_per_run rows of one group. The last
// group has the OCB % tile.blocks remaining blocks. With rows_outer the order
// is (n, oh, group), group fastest: a thread's range is whole rows, each done
// by itself.
template <int B>
CUVIL_INLINE void convTasks(const float *x, const float *w, const float *bias, const float *res,
                            float *y, const Params *params, int64_t begin, int64_t end) {
  const Params &p = *params;
  const Geometry g = geometry<B>(p);
  const int64_t J = p.tile.blocks, groups = (g.OCB + J - 1) / J;
  if (p.rows_outer) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t rest = task / groups;
      convRun<B>(g, p, x, w, bias, res, y, rest / g.win.OH, task % groups, rest % g.win.OH, 1);
    }
    return;
  }
  for (int64_t task = begin; task < end;) {
    const int64_t oh0 = task % g.win.OH, rest = task / g.win.OH;
    int64_t rows = end - task < g.win.OH - oh0 ? end - task : g.win.OH - oh0;
    rows = rows < p.rows_per_run ? rows : p.rows_per_run;
    convRun<B>(g, p, x, w, bias, res, y, rest / groups, rest % groups, oh0, rows);
    task += rows;
  }
}

} // namespace

CUVIL_BLOCKED_KERNELS(conv, convTasks,
                      (const float *x, const float *w, const float *bias, const float *res,
                       float *y, const cuvil_conv_nchwc_params *p, int64_t begin, int64_t end),
                      (x, w, bias, res, y, p, begin, end))
