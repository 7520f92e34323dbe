// Depthwise convolution (one filter per channel) in NCHWc (B = 16 or 8):
//   x, y, residual: [N, CB, H, W, B]; w: [CB, KH, KW, B]; bias: [CB * B]
// A task is one output row of one channel block, cut into tiles of P pixels:
//   acc[p] = bias[cb]
//   for kh with ih inside, kw:  acc[p] += x[cb][ih][iw(p, kw)][:] * w[cb][kh][kw][:]
//   y[cb][oh][ow+p][:] = act(acc[p] + residual)
// Memory-bound: each FMA needs one input load, so tiles are wide and the
// border pixels (clipped kw range) are done one at a time.
#include "DepthwiseNCHWcRow.h"

using namespace cuvil::kernels;
using namespace cuvil::kernels::depthwise_nchwc;

namespace {

// Tasks: (n, cb, oh), oh fastest.
template <int B>
CUVIL_INLINE void dwconvTasks(const float *x, const float *w, const float *bias, const float *res,
                              float *y, const cuvil_dwconv_nchwc_params *p, int64_t begin,
                              int64_t end) {
  const Shape &s = p->window;
  const int64_t CB = p->CB, OH = s.OH;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t oh = task % OH, plane = task / OH, cb = plane % CB;
    const int64_t yRow = (plane * OH + oh) * s.OW * B;
    row<B>(s, p->tile_pixels, p->reuse_inputs != 0, x + plane * s.IH * s.IW * B, 0,
           w + cb * s.KH * s.KW * B, bias ? bias + cb * B : nullptr, res ? res + yRow : nullptr,
           y + yRow, oh, p->activation);
  }
}

} // namespace

CUVIL_BLOCKED_KERNELS(dwconv, dwconvTasks,
                      (const float *x, const float *w, const float *bias, const float *res,
                       float *y, const cuvil_dwconv_nchwc_params *p, int64_t begin, int64_t end),
                      (x, w, bias, res, y, p, begin, end))
