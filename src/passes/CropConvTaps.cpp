// crop-conv-taps: a Conv whose leading or trailing kernel taps read only
// padding, for every output position, gets a smaller kernel. Atrous
// convolutions ask for this: DeepLab's ASPP runs 3x3 kernels with dilation
// 24 and 36 on a 14x14 map, where only the centre tap ever reaches the input;
// computing the other eight (and padding the input by 36 on every side)
// multiplied the work by nine.
//
// Per spatial axis (extent H, output extent O, stride s, dilation d, pads
// pb/pe, kernel k), tap t reads input position o*s - pb + t*d at output o;
// it is live when that lies in [0, H) for some o in [0, O). With first and
// last the outermost live taps, the kernel becomes taps [first, last] and
//   pb' = pb - first*d,  pe' = pe - (k - 1 - last)*d,
// which keeps every output's extent and the positions each remaining tap
// reads; the dropped taps only ever multiplied zeros. An axis whose new pads
// would be negative (a kernel longer than its strided reach) stays whole.
#include "PassUtils.h"

#include "cuvil/ir/WindowGeometry.h"
#include "cuvil/passes/Passes.h"

#include <cstring>

namespace cuvil {
namespace {

struct TapRange {
  int64_t first, last; // first > last: no tap ever reads the input
};

TapRange liveTaps(int64_t H, int64_t O, int64_t k, int64_t s, int64_t d, int64_t pb) {
  auto live = [&](int64_t t) {
    int64_t at = t * d - pb;                     // position at o = 0
    int64_t o = at >= 0 ? 0 : (-at + s - 1) / s; // first o reaching position >= 0
    return o < O && at + o * s <= H - 1;
  };
  TapRange range{0, k - 1};
  while (range.first < k && !live(range.first))
    ++range.first;
  while (range.last >= range.first && !live(range.last))
    --range.last;
  return range;
}

// The weights' taps [first[a], first[a] + kernel[a]) on every spatial axis a.
Tensor cropWeights(const Tensor &w, const std::vector<int64_t> &first,
                   const std::vector<int64_t> &kernel) {
  std::vector<int64_t> from = w.dims();
  Shape shape = {from[0], from[1]};
  for (int64_t k : kernel)
    shape.push_back(k);
  Tensor out(TensorType{w.dtype(), shape});
  size_t element = dtypeSize(w.dtype()), rank = from.size();
  // Walk the cropped tensor's rows (its innermost axis is one contiguous run
  // of the source) with an odometer over the outer axes.
  std::vector<int64_t> index(rank - 1, 0);
  int64_t rowElements = kernel.back(), rows = out.numElements() / rowElements;
  for (int64_t row = 0; row < rows; ++row) {
    int64_t source = 0;
    for (size_t a = 0; a + 1 < rank; ++a)
      source = source * from[a] + index[a] + (a >= 2 ? first[a - 2] : 0);
    source = source * from[rank - 1] + first.back();
    std::memcpy(out.mutableBytes() + size_t(row * rowElements) * element,
                w.bytes() + size_t(source) * element, size_t(rowElements) * element);
    for (size_t a = rank - 1; a-- > 0;) {
      if (++index[a] < (a >= 2 ? kernel[a - 2] : from[a]))
        break;
      index[a] = 0;
    }
  }
  return out;
}

// Crops one Conv where some taps are dead: true when it changed.
bool cropConv(Graph &graph, Node &conv) {
  Value *x = conv.input(0), *w = conv.input(1);
  if (!w->isConstant() || !x->hasType())
    return false;
  const Shape &xs = x->type().shape;
  const Tensor &weights = w->constant();
  if (xs.size() < 3 || !isStatic(std::span(xs).subspan(2)) || weights.shape().size() != xs.size())
    return false;
  std::vector<int64_t> dims = weights.dims();
  std::vector<int64_t> kernel(dims.begin() + 2, dims.end());
  Expected<WindowGeometry> g = windowGeometry(conv, Shape(xs.begin() + 2, xs.end()), kernel, false);
  if (!g)
    return false; // shape inference has reported it already, or will
  size_t axes = kernel.size();
  std::vector<int64_t> first(axes), cropped(axes), padsBegin(axes), padsEnd(axes);
  bool changed = false;
  for (size_t a = 0; a < axes; ++a) {
    if (!g->output[a].isConstant() || !g->padsBegin[a].isConstant() || !g->padsEnd[a].isConstant())
      return false;
    int64_t d = g->dilations[a], pb = g->padsBegin[a].constant(), pe = g->padsEnd[a].constant();
    TapRange live =
        liveTaps(g->input[a].constant(), g->output[a].constant(), kernel[a], g->strides[a], d, pb);
    if (live.first > live.last)
      return false; // the output is the bias alone: rare enough to leave as it is
    int64_t newBegin = pb - live.first * d, newEnd = pe - (kernel[a] - 1 - live.last) * d;
    if (newBegin < 0 || newEnd < 0)
      live = {0, kernel[a] - 1}, newBegin = pb, newEnd = pe;
    first[a] = live.first;
    cropped[a] = live.last - live.first + 1;
    padsBegin[a] = newBegin;
    padsEnd[a] = newEnd;
    changed |= cropped[a] != kernel[a];
  }
  if (!changed)
    return false;
  Value *newWeights =
      graph.addConstant(w->name() + ".cropped", cropWeights(weights, first, cropped));
  conv.setInput(1, newWeights);
  std::vector<int64_t> pads = padsBegin;
  pads.insert(pads.end(), padsEnd.begin(), padsEnd.end());
  conv.removeAttr("auto_pad");
  conv.setAttr("pads", pads);
  conv.setAttr("kernel_shape", cropped);
  return true;
}

} // namespace

Status runCropConvTaps(Graph &graph, PassContext &) {
  std::vector<Node *> convs;
  for (const auto &node : graph.nodes())
    if (node->op() == "Conv")
      convs.push_back(node.get());
  bool changed = false;
  for (Node *conv : convs)
    changed |= cropConv(graph, *conv);
  if (changed)
    graph.eraseUnusedConstants();
  return Status::success();
}

} // namespace cuvil
