// MobileNetV2's inverted residual block in NCHWc (B = 16 or 8), in one pass
// over bands of output rows so that the wide intermediate tensors stay in L2:
//   e = act_e(conv(x, we) + be)                  (optional expansion: a 1x1
//                                                 conv, or a network's stem)
//   d = act_d(depthwise(e, wd) + bd)             (KH x KW, strides, pads)
//   y = act_p(conv1x1(d, wp) + bp + residual)    (projection)
// Layouts: x [N, XG, XH, XW, B] (or plain [N, C, XH, XW]); we as a direct
// convolution's (ConvNCHWc.cpp); wd [ECB, KH, KW, B]; wp [OCB, ECB, 1, 1, B,
// B]; y, residual [N, OCB, OH, OW, B]; e is [N, ECB, EH, EW, B].
// A task is one part of an image's output rows, done band by band in its own
// scratch slot (a thread's consecutive parts as one sweep), E [ECB, eRows,
// EW, B] (a ring: e row r at r mod eRows) then D [ECB, bandRows, OW, B]:
//   for each band [o0, o1) of the sweep's rows:
//     [e0, e1) = e rows the band's windows touch (inside the image)
//     E[:, r mod eRows] = expansion row r, for the rows of [e0, e1) not
//                         expanded for the previous band (without an
//                         expansion the depthwise reads x instead)
//     D[:, 0 : o1-o0] = depthwise rows [o0, o1) from E
//     y rows [o0, o1) = projection of D
// Where a thread's sweep starts mid-image, the rows its windows share with
// the previous sweep are expanded by both, so the lowering keeps parts tall.
#include "ConvNCHWcTile.h"
#include "DepthwiseNCHWcRow.h"

using namespace cuvil::kernels;

namespace {

namespace conv = cuvil::kernels::conv_nchwc;
namespace dw = cuvil::kernels::depthwise_nchwc;

using Params = cuvil_inverted_residual_params;

// Output rows [row0, row0 + rows) of convolution `g` from x into y, whose
// rows sit `shift` before the output rows (see Step), the output blocks in
// groups of J (the last group holds the remainder).
template <int B>
CUVIL_INLINE void convRows(const conv::Geometry &g, const cuvil_tile &tile, const float *x,
                           const float *w, const float *bias, const float *res, float *y,
                           int64_t row0, int64_t rows, int64_t shift, const cuvil_unary &act) {
  const int64_t J = tile.blocks;
  for (int64_t ocb = 0; ocb < g.OCB; ocb += J) {
    const int64_t blocks = g.OCB - ocb < J ? g.OCB - ocb : J;
    const conv::Step step{ocb, 0, g.G, false, true, shift, nullptr, 0};
    for (int64_t r = row0; r < row0 + rows; ++r)
      conv::rowOf<B>(blocks, g, tile.pixels, x, w, bias, res, y, step, r, act);
  }
}

template <int B>
CUVIL_INLINE void invertedResidualTasks(const float *x, const float *we, const float *be,
                                        const float *wd, const float *bd, const float *wp,
                                        const float *bp, const float *res, float *y, float *scratch,
                                        const Params *params, int64_t begin, int64_t end) {
  const Params &p = *params;
  const dw::Shape &ds = p.depthwise_window;
  const int64_t ECB = p.ECB, EH = ds.IH, EW = ds.IW, OCB = p.OCB;
  const int64_t OH = ds.OH, OW = ds.OW, parts = p.parts, bandRows = p.band_rows;
  const int64_t eRows = p.expanded_rows;
  const bool expand = p.expand != 0, plain = p.plain_input != 0;
  // The expansion writes E (eRows per block); the projection reads D.
  cuvil_window2d ringWindow = p.expand_window;
  ringWindow.OH = eRows;
  const conv::Geometry ge =
      conv::windowGeometry<B>(p.XG, ECB, ringWindow, plain, p.input_last_channels, p.XG);
  const conv::Geometry gp =
      conv::pointwiseGeometry<B>(ECB, bandRows, OCB, OH, OW, p.expanded_last_channels);
  const int64_t rowsPerPart = (OH + parts - 1) / parts;
  // Consecutive parts of one image in this task range are one sweep, in the
  // first one's scratch slot: only the range's ends expand shared rows twice.
  for (int64_t task = begin; task < end;) {
    const int64_t n = task / parts, firstPart = task % parts;
    const int64_t lastPart = end - n * parts < parts ? end - n * parts : parts;
    const float *xn = x + n * ge.xImage;
    float *yn = y + n * OCB * OH * OW * B;
    const float *rn = res ? res + n * OCB * OH * OW * B : nullptr;
    float *E = scratch + task * p.slot_floats;
    float *D = expand ? E + ECB * eRows * EW * B : E;
    const int64_t oEnd = lastPart * rowsPerPart < OH ? lastPart * rowsPerPart : OH;
    task = n * parts + lastPart;
    int64_t expanded = 0; // E holds the e rows up to here
    for (int64_t o0 = firstPart * rowsPerPart; o0 < oEnd; o0 += bandRows) {
      const int64_t o1 = o0 + bandRows < oEnd ? o0 + bandRows : oEnd;
      // The depthwise input: the ring E, or x itself.
      const float *dIn = xn;
      int64_t ring = 0, dPlane = EH * EW * B;
      if (expand) {
        const int64_t top = o0 * ds.SH - ds.PT;
        const int64_t bottom = (o1 - 1) * ds.SH - ds.PT + (ds.KH - 1) * ds.DH + 1;
        const int64_t e0 = top > 0 ? top : 0, e1 = bottom < EH ? bottom : EH;
        // Rows the previous band expanded stay in the ring; the new ones go
        // in at most two runs (before and after the ring wraps).
        for (int64_t r = expanded > e0 ? expanded : e0; r < e1;) {
          const int64_t slot = r % eRows;
          const int64_t rows = e1 - r < eRows - slot ? e1 - r : eRows - slot;
          convRows<B>(ge, p.expand_tile, xn, we, be, nullptr, E, r, rows, r - slot,
                      p.expand_activation);
          r += rows;
        }
        expanded = e1;
        dIn = E;
        ring = eRows;
        dPlane = eRows * EW * B;
      }
      for (int64_t cb = 0; cb < ECB; ++cb)
        for (int64_t oh = o0; oh < o1; ++oh)
          dw::row<B>(ds, p.depthwise_tile_pixels, p.depthwise_reuse != 0, dIn + cb * dPlane, ring,
                     wd + cb * ds.KH * ds.KW * B, bd ? bd + cb * B : nullptr, nullptr,
                     D + (cb * bandRows + oh - o0) * OW * B, oh, p.depthwise_activation);
      convRows<B>(gp, p.project_tile, D, wp, bp, rn ? rn + o0 * OW * B : nullptr, yn + o0 * OW * B,
                  0, o1 - o0, 0, p.project_activation);
    }
  }
}

} // namespace

CUVIL_BLOCKED_KERNELS(inverted_residual, invertedResidualTasks,
                      (const float *x, const float *we, const float *be, const float *wd,
                       const float *bd, const float *wp, const float *bp, const float *res,
                       float *y, float *scratch, const cuvil_inverted_residual_params *p,
                       int64_t begin, int64_t end),
                      (x, we, be, wd, bd, wp, bp, res, y, scratch, p, begin, end))
