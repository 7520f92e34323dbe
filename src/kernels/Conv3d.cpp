// 3-D convolution in plain NCDHW layout, any groups/strides/pads/dilations,
// with a fused epilogue: y = act(conv(x, w) + bias + residual), as one GEMM
// per image and group:
//   y[n, g] (Mg x P) = w[g] (Mg x K) . cols (K x P)
// P = OD*OH*OW output pixels, K = Cg*KD*KH*KW taps, and cols[k, p] the
// input under tap k = (c, kd, kh, kw) of pixel p = (od, oh, ow), 0 in the
// padding (vol2col). cols is never materialised: each task packs its
// panel of it a chunk at a time, as the GEMM packs a strided B.
//
// A task is one (n, g, panel of 64 output pixels):
//   runs = the panel's pixels cut where an output row ends: (od, oh, ow0, length)
//   for k0 in chunks of chunk_k taps:
//     for (c, kd, kh) in the chunk, run, kw:   (a run's input row found once for its kw;
//                                              at stride 1 copied in vectors)
//       panel[k, run's columns] = x[n, g*Cg + c, od*SD - PF + kd*DD, oh*SH - PT + kh*DH,
//                                   (ow0 + j)*SW - PL + kw*DW] (0 outside)
//     for m0 in steps of MR output channels, columns in steps of 16 NV:
//       y[n, g*Mg + m0 + r, p0 + j] = first chunk ? acc + bias + residual : y + acc
//                                     (act after the last chunk)
// The register tile is the GEMM's (GemmTile.h) with a bias per row.
#include "GemmTile.h"

#include "cuvil/kernels/Conv.h"

using namespace cuvil::kernels;

namespace {

constexpr int64_t kPanel = CUVIL_GEMM_PANEL; // 4 vectors

// Pixels of one output row in a panel: its first column, length, and the
// input coordinates its first pixel's window starts at.
struct Run {
  int64_t column, length, d0, h0, w0;
};

CUVIL_INLINE int64_t clampTo(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// Cuts panel pixels [p0, p0 + columns) at output row ends; returns the count.
CUVIL_INLINE int64_t cutRuns(const cuvil_window3d &win, int64_t p0, int64_t columns, Run *runs) {
  const cuvil_window2d &pl = win.plane;
  const int64_t planePixels = pl.OH * pl.OW;
  int64_t count = 0;
  for (int64_t p = p0; p < p0 + columns;) {
    const int64_t od = p / planePixels, oh = p % planePixels / pl.OW, ow = p % pl.OW;
    const int64_t length = clampTo(pl.OW - ow, 0, p0 + columns - p);
    runs[count++] = {p - p0, length, od * win.SD - win.PF, oh * pl.SH - pl.PT, ow * pl.SW - pl.PL};
    p += length;
  }
  return count;
}

// dst[0, n) = src[0, n) in 8-float vectors, the last one ending at n
// (overlapping the one before): no scalar tail, nothing read past src + n.
CUVIL_INLINE void copyFloats(float *dst, const float *src, int64_t n) {
  if (n < 8) {
    for (int64_t j = 0; j < n; ++j)
      dst[j] = src[j];
    return;
  }
  for (int64_t j = 0; j < n - 8; j += 8)
    storeV(dst + j, loadV<v8>(src + j));
  storeV(dst + n - 8, loadV<v8>(src + n - 8));
}

// Panel rows [k0, k0 + kc): row k holds the input under tap k for every
// pixel, 0 where the tap falls into the padding or past the last column.
// The taps k = (c, kd, kh, kw) are walked an input row (c, kd, kh) at a
// time, so that each run finds its input row once for all its kw.
CUVIL_INLINE void packPanel(const float *xg, const cuvil_window3d &win, const Run *runs,
                            int64_t runCount, int64_t columns, int64_t k0, int64_t kc,
                            float *panel) {
  const cuvil_window2d &pl = win.plane;
  const int64_t ID = win.ID, IH = pl.IH, IW = pl.IW, KD = win.KD, KH = pl.KH, KW = pl.KW;
  const int64_t SW = pl.SW, DW = pl.DW;
  for (int64_t k = k0; k < k0 + kc;) {
    const int64_t rowTap = k / KW, kwBegin = k % KW;
    const int64_t kwEnd = KW - kwBegin < k0 + kc - k ? KW : kwBegin + (k0 + kc - k);
    const int64_t kh = rowTap % KH, kd = rowTap / KH % KD, c = rowTap / (KH * KD);
    float *rows = panel + (k - k0 - kwBegin) * kPanel; // the row of kw = 0
    for (int64_t r = 0; r < runCount; ++r) {
      const Run &run = runs[r];
      const int64_t id = run.d0 + kd * win.DD, ih = run.h0 + kh * pl.DH;
      const bool inside = id >= 0 && id < ID && ih >= 0 && ih < IH;
      const float *xr = xg + ((c * ID + id) * IH + ih) * IW;
      for (int64_t kw = kwBegin; kw < kwEnd; ++kw) {
        float *out = rows + kw * kPanel + run.column;
        const int64_t iw0 = run.w0 + kw * DW; // iw = iw0 + j*SW
        int64_t lo = 0, hi = 0;
        if (inside) {
          lo = clampTo(iw0 >= 0 ? 0 : (-iw0 + SW - 1) / SW, 0, run.length);
          hi = clampTo(IW - iw0 <= 0 ? 0 : (IW - iw0 + SW - 1) / SW, lo, run.length);
        }
        for (int64_t j = 0; j < lo; ++j)
          out[j] = 0.0f;
        if (SW == 1) {
          copyFloats(out + lo, xr + iw0 + lo, hi - lo);
        } else {
          for (int64_t j = lo; j < hi; ++j)
            out[j] = xr[iw0 + j * SW];
        }
        for (int64_t j = hi; j < run.length; ++j)
          out[j] = 0.0f;
      }
    }
    if (columns < kPanel)
      for (int64_t kw = kwBegin; kw < kwEnd; ++kw)
        for (int64_t j = columns; j < kPanel; ++j)
          rows[kw * kPanel + j] = 0.0f;
    k += kwEnd - kwBegin;
  }
}

} // namespace

CUVIL_KERNEL void cuvil_conv3d_nchw_f32(const float *x, const float *w, const float *bias,
                                        const float *residual, float *y,
                                        const cuvil_conv3d_params *p, int64_t begin, int64_t end) {
  const cuvil_window3d &win = p->window;
  const cuvil_window2d &pl = win.plane;
  const int64_t G = p->groups, Cg = p->C / G, M = p->M, Mg = M / G;
  const int64_t inputVolume = win.ID * pl.IH * pl.IW, P = win.OD * pl.OH * pl.OW;
  const int64_t K = Cg * win.KD * pl.KH * pl.KW;
  const int64_t panels = (P + kPanel - 1) / kPanel;
  const int64_t MR = p->tile.pixels, NV = p->tile.blocks, chunkK = p->chunk_k;
  float panel[CUVIL_GEMM_MAX_CHUNK_K * kPanel] __attribute__((aligned(64)));
  Run runs[kPanel];
  for (int64_t task = begin; task < end; ++task) {
    const int64_t image = task / panels / G, g = task / panels % G;
    const int64_t p0 = task % panels * kPanel, columns = P - p0 < kPanel ? P - p0 : kPanel;
    const int64_t runCount = cutRuns(win, p0, columns, runs);
    const float *xg = x + (image * p->C + g * Cg) * inputVolume;
    const float *wg = w + g * Mg * K;
    const int64_t yOffset = (image * M + g * Mg) * P + p0;
    for (int64_t k0 = 0; k0 < K; k0 += chunkK) {
      const int64_t kc = K - k0 < chunkK ? K - k0 : chunkK;
      packPanel(xg, win, runs, runCount, columns, k0, kc, panel);
      const bool first = k0 == 0, last = k0 + kc == K;
      // Later chunks accumulate into y through the residual path (y
      // itself); the first adds bias and residual.
      GemmEpilogue part{
          first && bias ? bias + g * Mg : nullptr, nullptr, P, P, p->activation, 1.0f};
      part.act.op = last ? p->activation.op : CUVIL_UNARY_IDENTITY;
      for (int64_t m0 = 0; m0 < Mg; m0 += MR) {
        const int64_t rowsLeft = Mg - m0 < MR ? Mg - m0 : MR;
        for (int64_t c0 = 0; c0 < columns; c0 += 16 * NV) {
          GemmEpilogue sub = part;
          sub.bias = part.bias ? part.bias + m0 : nullptr;
          const int64_t offset = yOffset + m0 * P + c0;
          sub.residual = first ? (residual ? residual + offset : nullptr) : y + offset;
          gemmTile<true>(NV, rowsLeft, wg + m0 * K + k0, K, panel + c0, kc, y + offset,
                         columns - c0, sub);
        }
      }
    }
  }
}
