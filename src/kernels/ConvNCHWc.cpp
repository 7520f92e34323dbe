// Direct convolution in the blocked NCHWc layout, the workhorse of CNNs.
//
// Layouts (B = 16 or 8 channels per block):
//   x: [N, ICB, IH, IW, B]  (or plain [N, C, IH, IW] for a first layer with
//                             few channels: no reorder needed)
//   w: [OCB, ICB, KH, KW, B(ic), B(oc)]  (plain input: [OCB, C, KH, KW, B(oc)])
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
// time with the kw range clipped; everything else takes the full tile.
#include "Vector.h"

using namespace cuvil::kernels;

namespace {

enum ConvParam {
  kN,
  kGroupsIn,
  kIH,
  kIW,
  kOCB,
  kOH,
  kOW,
  kKH,
  kKW,
  kSH,
  kSW,
  kPT,
  kPL,
  kDH,
  kDW,
  kAct,
  kPlainInput,
  kTileP,
  kTileJ,
  kLastGroupChannels, // real channels in the last input block (B when full)
  kGroupsPerStep,     // GK: input groups whose weights one step keeps in L1
  kRowsPerRun,        // rows whose partial sums stay in L2 between steps
};

// Address steps of one convolution, all compile-time constants once the
// kernel is specialised.
struct Geometry {
  int64_t G, IH, IW, OCB, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW;
  int64_t CI;               // channels per input group: B, or 1 when plain
  int64_t lastCI;           // channels in the last group
  int64_t GK;               // input groups per step
  int64_t aG, aH, aW;       // x steps per group, input row, input column
  int64_t bG, bKH, bKW, bJ; // w steps per group, kh, kw, output block
  int64_t xImage, yImage;   // elements per image
};

template <int B> CUVIL_INLINE Geometry geometry(const int64_t *p) {
  Geometry g;
  g.G = p[kGroupsIn];
  g.IH = p[kIH];
  g.IW = p[kIW];
  g.OCB = p[kOCB];
  g.OH = p[kOH];
  g.OW = p[kOW];
  g.KH = p[kKH];
  g.KW = p[kKW];
  g.SH = p[kSH];
  g.SW = p[kSW];
  g.PT = p[kPT];
  g.PL = p[kPL];
  g.DH = p[kDH];
  g.DW = p[kDW];
  bool plain = p[kPlainInput] != 0;
  g.CI = plain ? 1 : B;
  g.lastCI = plain ? 1 : p[kLastGroupChannels];
  g.GK = p[kGroupsPerStep];
  g.aW = plain ? 1 : B;
  g.aH = g.IW * g.aW;
  g.aG = g.IH * g.aH;
  g.bKW = plain ? B : B * B;
  g.bKH = g.KW * g.bKW;
  g.bG = g.KH * g.bKH;
  g.bJ = g.G * g.bG;
  g.xImage = g.G * g.aG;
  g.yImage = g.OCB * g.OH * g.OW * B;
  return g;
}

// What one tile call covers besides its pixels: the output blocks from ocb,
// input groups [g0, g1) and whether the tile starts from y's partial sums
// (not the first step) and ends with the epilogue (the last step).
struct Step {
  int64_t ocb, g0, g1;
  bool accumulate, finish;
};

// P pixels starting at output column ow0 (input column iw0 for kw = 0), J
// output blocks; kw restricted to [kwLo, kwHi) (the whole kernel for interior
// tiles).
template <int B, int P, int J>
CUVIL_TILE void tile(const Geometry &g, const float *x, const float *w, const float *bias,
                     const float *res, float *y, const Step &s, int64_t oh, int64_t ow0,
                     int64_t kwLo, int64_t kwHi, int64_t act, float alpha, float beta) {
  using V = Block<B>;
  V acc[P][J];
#pragma clang loop unroll(full)
  for (int j = 0; j < J; ++j) {
    const int64_t offset = (((s.ocb + j) * g.OH + oh) * g.OW + ow0) * B;
    V b = bias ? loadV<V>(bias + (s.ocb + j) * B) : V(0.0f);
#pragma clang loop unroll(full)
    for (int p = 0; p < P; ++p)
      acc[p][j] = s.accumulate ? loadV<V>(y + offset + p * B) : b;
  }
  const int64_t ihBase = oh * g.SH - g.PT, iwBase = ow0 * g.SW - g.PL;
  const float *wBlock = w + s.ocb * g.bJ;
  for (int64_t grp = s.g0; grp < s.g1; ++grp) {
    // The last input block may be partly padding, whose weights are zero.
    const int64_t channels = grp + 1 == g.G ? g.lastCI : g.CI;
    for (int64_t kh = 0; kh < g.KH; ++kh) {
      const int64_t ih = ihBase + kh * g.DH;
      if (ih < 0 || ih >= g.IH)
        continue;
      for (int64_t kw = kwLo; kw < kwHi; ++kw) {
        const float *xp = x + grp * g.aG + ih * g.aH + (iwBase + kw * g.DW) * g.aW;
        const float *wp = wBlock + grp * g.bG + kh * g.bKH + kw * g.bKW;
        for (int64_t c = 0; c < channels; ++c) {
          V wv[J];
#pragma clang loop unroll(full)
          for (int j = 0; j < J; ++j)
            wv[j] = loadV<V>(wp + j * g.bJ + c * B);
#pragma clang loop unroll(full)
          for (int p = 0; p < P; ++p) {
            V xv = xp[p * g.SW * g.aW + c];
#pragma clang loop unroll(full)
            for (int j = 0; j < J; ++j)
              acc[p][j] += xv * wv[j];
          }
        }
      }
    }
  }
#pragma clang loop unroll(full)
  for (int j = 0; j < J; ++j) {
    const int64_t offset = (((s.ocb + j) * g.OH + oh) * g.OW + ow0) * B;
#pragma clang loop unroll(full)
    for (int p = 0; p < P; ++p) {
      V v = acc[p][j];
      if (s.finish && res)
        v += loadV<V>(res + offset + p * B);
      storeV(y + offset + p * B, s.finish ? applyUnary<V>(act, v, alpha, beta) : v);
    }
  }
}

// The most accumulators a tile instance may have: 32 zmm registers hold 28
// 16-lane ones at a push; 16 ymm registers hold 12 8-lane ones (the lowering
// picks within these, see ConvTiling.cpp).
template <int B> constexpr int kMaxTileAccumulators = B == 16 ? 28 : 12;

// One tile of P pixels (1 <= P <= 14) and J blocks, P picked at run time
// from the few values a specialised convolution needs.
template <int B, int J>
CUVIL_INLINE void tileOf(int64_t P, const Geometry &g, const float *x, const float *w,
                         const float *bias, const float *res, float *y, const Step &s, int64_t oh,
                         int64_t ow0, int64_t kwLo, int64_t kwHi, int64_t act, float alpha,
                         float beta) {
#define CUVIL_TILE_CASE(n)                                                                         \
  case n:                                                                                          \
    if constexpr (n * J <= kMaxTileAccumulators<B>)                                                \
      tile<B, n, J>(g, x, w, bias, res, y, s, oh, ow0, kwLo, kwHi, act, alpha, beta);              \
    return;
  switch (P) {
    CUVIL_TILE_CASE(1)
    CUVIL_TILE_CASE(2)
    CUVIL_TILE_CASE(3)
    CUVIL_TILE_CASE(4)
    CUVIL_TILE_CASE(5)
    CUVIL_TILE_CASE(6)
    CUVIL_TILE_CASE(7)
    CUVIL_TILE_CASE(8)
    CUVIL_TILE_CASE(9)
    CUVIL_TILE_CASE(10)
    CUVIL_TILE_CASE(11)
    CUVIL_TILE_CASE(12)
    CUVIL_TILE_CASE(13)
    CUVIL_TILE_CASE(14)
  default:
    return;
  }
#undef CUVIL_TILE_CASE
}

// One output row of J blocks: border pixels one by one, interior in tiles.
// Every count here derives from constants, so after specialisation only the
// tile widths this convolution needs remain.
template <int B, int J>
CUVIL_INLINE void row(const Geometry &g, int64_t tileP, const float *x, const float *w,
                      const float *bias, const float *res, float *y, const Step &s, int64_t oh,
                      int64_t act, float alpha, float beta) {
  // Interior columns: every kw stays inside [0, IW).
  int64_t owLo = g.PL <= 0 ? 0 : (g.PL + g.SW - 1) / g.SW;
  const int64_t lastStart = g.IW - 1 + g.PL - (g.KW - 1) * g.DW; // largest ow*SW allowed
  int64_t owHi = lastStart < 0 ? 0 : lastStart / g.SW + 1;
  owHi = owHi < g.OW ? owHi : g.OW;
  owLo = owLo < owHi ? owLo : owHi;
  const int64_t fullTiles = (owHi - owLo) / tileP, restPixels = (owHi - owLo) % tileP;
  auto border = [&](int64_t ow) __attribute__((always_inline)) {
    int64_t iw0 = ow * g.SW - g.PL;
    int64_t kwLo = iw0 >= 0 ? 0 : (-iw0 + g.DW - 1) / g.DW;
    int64_t kwHi = g.IW - iw0 <= 0 ? 0 : (g.IW - iw0 + g.DW - 1) / g.DW;
    kwHi = kwHi < g.KW ? kwHi : g.KW;
    tile<B, 1, J>(g, x, w, bias, res, y, s, oh, ow, kwLo, kwHi < kwLo ? kwLo : kwHi, act, alpha,
                  beta);
  };
  for (int64_t ow = 0; ow < owLo; ++ow)
    border(ow);
  for (int64_t t = 0; t < fullTiles; ++t)
    tileOf<B, J>(tileP, g, x, w, bias, res, y, s, oh, owLo + t * tileP, 0, g.KW, act, alpha, beta);
  if (restPixels)
    tileOf<B, J>(restPixels, g, x, w, bias, res, y, s, oh, owLo + fullTiles * tileP, 0, g.KW, act,
                 alpha, beta);
  for (int64_t ow = owHi; ow < g.OW; ++ow)
    border(ow);
}

template <int B>
CUVIL_INLINE void rowOf(int64_t blocks, const Geometry &g, int64_t tileP, const float *x,
                        const float *w, const float *bias, const float *res, float *y,
                        const Step &s, int64_t oh, int64_t act, float alpha, float beta) {
  switch (blocks) {
  case 4:
    return row<B, 4>(g, tileP, x, w, bias, res, y, s, oh, act, alpha, beta);
  case 3:
    return row<B, 3>(g, tileP, x, w, bias, res, y, s, oh, act, alpha, beta);
  case 2:
    return row<B, 2>(g, tileP, x, w, bias, res, y, s, oh, act, alpha, beta);
  default:
    return row<B, 1>(g, tileP, x, w, bias, res, y, s, oh, act, alpha, beta);
  }
}

// Tasks: (n, ocb group of tileJ blocks, oh), oh fastest. The last group
// has the OCB % tileJ remaining blocks. A task range is done as runs of at
// most kRowsPerRun rows of one (n, group), each run in steps of GK input
// groups; the run's rows of y hold the partial sums between steps.
template <int B>
CUVIL_INLINE void convTasks(const float *x, const float *w, const float *bias, const float *res,
                            float *y, const int64_t *p, float alpha, float beta, int64_t begin,
                            int64_t end) {
  const Geometry g = geometry<B>(p);
  const int64_t J = p[kTileJ], fullGroups = g.OCB / J, restBlocks = g.OCB % J;
  const int64_t groups = fullGroups + (restBlocks ? 1 : 0);
  for (int64_t task = begin; task < end;) {
    const int64_t oh0 = task % g.OH, rest = task / g.OH;
    const int64_t group = rest % groups, n = rest / groups;
    int64_t rows = end - task < g.OH - oh0 ? end - task : g.OH - oh0;
    rows = rows < p[kRowsPerRun] ? rows : p[kRowsPerRun];
    const float *xn = x + n * g.xImage;
    float *yn = y + n * g.yImage;
    const float *rn = res ? res + n * g.yImage : nullptr;
    const int64_t blocks = group < fullGroups ? J : restBlocks;
    for (int64_t g0 = 0; g0 < g.G; g0 += g.GK) {
      const Step s{group * J, g0, g0 + g.GK < g.G ? g0 + g.GK : g.G, g0 > 0, g0 + g.GK >= g.G};
      for (int64_t oh = oh0; oh < oh0 + rows; ++oh)
        rowOf<B>(blocks, g, p[kTileP], xn, w, bias, rn, yn, s, oh, p[kAct], alpha, beta);
    }
    task += rows;
  }
}

} // namespace

CUVIL_BLOCKED_KERNELS(conv, convTasks,
                      (const float *x, const float *w, const float *bias, const float *res,
                       float *y, const int64_t *p, float alpha, float beta, int64_t begin,
                       int64_t end),
                      (x, w, bias, res, y, p, alpha, beta, begin, end))
