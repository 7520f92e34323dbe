// Pad: grows (or, with negative pads, crops) each axis by the constant
// `pads` input [begins..., ends...], over the optional `axes` (opset 18).
// Modes: constant (the optional scalar constant_value, default 0), reflect,
// edge, wrap. The importer turns opset < 11 attributes into inputs.
#include "OpSupport.h"
#include "cuvil/kernels/DataMovement.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace cuvil::ops {
namespace {

struct PadGeometry {
  Shape outShape;
  std::vector<int64_t> padsBegin;
  int64_t mode;
};

constexpr std::array<std::string_view, 4> kModes = {"constant", "reflect", "edge", "wrap"};

Expected<PadGeometry> geometry(const Node &node, const Shape &in) {
  Expected<std::vector<int64_t>> padsGiven = constantInts(node, 1, "pads");
  CUVIL_TRY(padsGiven.status());
  const std::vector<int64_t> &pads = *padsGiven;
  int64_t rank = int64_t(in.size());
  std::vector<int64_t> axes;
  if (node.hasInput(3)) {
    Expected<std::vector<int64_t>> given = constantInts(node, 3, "axes");
    CUVIL_TRY(given.status());
    Expected<std::vector<int64_t>> normalized = normalizeAxes(*given, rank);
    CUVIL_TRY(normalized.status());
    axes = *normalized;
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  if (pads.size() != 2 * axes.size())
    return Status::error(fmt::format("pads has {} values for {} axes", pads.size(), axes.size()));
  std::string modeName = node.getString("mode", "constant");
  auto mode = std::find(kModes.begin(), kModes.end(), modeName);
  if (mode == kModes.end())
    return Status::error(fmt::format("unknown mode '{}'", modeName));
  PadGeometry g{in, std::vector<int64_t>(in.size(), 0), mode - kModes.begin()};
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t axis = size_t(axes[i]);
    int64_t before = pads[i], after = pads[i + axes.size()];
    g.outShape[axis] = in[axis] + before + after;
    g.padsBegin[axis] = before;
    if (g.outShape[axis].min() < 0)
      return Status::error(fmt::format("pads crop axis {} below zero", axis));
    if (g.mode != 0 && in[axis].is(0) && !g.outShape[axis].is(0))
      return Status::error("cannot reflect, edge- or wrap-pad an empty axis");
  }
  return g;
}

// The constant_value input's bytes (zero when omitted; other modes ignore
// it). canonicalize rewrites a run-time value away.
Expected<int64_t> fillBits(const Node &node, DType dtype) {
  int64_t bits = 0;
  if (const Value *value = node.input(2);
      value && node.getString("mode", "constant") == "constant") {
    if (!value->isConstant() || value->constant().numElements() != 1)
      return Status::error("constant_value must be a constant scalar");
    Tensor converted = value->constant().castTo(dtype);
    std::memcpy(&bits, converted.bytes(), converted.byteSize());
  }
  return bits;
}

Status infer(InferContext &ctx) {
  Expected<PadGeometry> g = geometry(ctx.node(), ctx.inputShape(0));
  CUVIL_TRY(g.status());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), g->outShape});
  return Status::success();
}

// In constant mode an unpadded inner dim joins the dim outside it: a
// blocked [N, CB, H, W, K] padded over H and W is padded as [N, CB, H, W*K],
// in rows of W*K elements rather than K.
void mergeUnpaddedDims(PadGeometry &g, Shape &in) {
  for (size_t d = in.size(); g.mode == 0 && d-- > 1;) {
    if (g.padsBegin[d] != 0 || g.outShape[d] != in[d] || !in[d].isConstant())
      continue;
    g.outShape[d - 1] = g.outShape[d - 1] * in[d];
    g.padsBegin[d - 1] *= in[d].constant();
    in[d - 1] = in[d - 1] * in[d];
    g.outShape.erase(g.outShape.begin() + std::ptrdiff_t(d));
    g.padsBegin.erase(g.padsBegin.begin() + std::ptrdiff_t(d));
    in.erase(in.begin() + std::ptrdiff_t(d));
  }
}

// The kernel's view: the shapes right-aligned in rank 6 (leading dims of
// size 1, padded by 0), the mode and the fill value's bits.
ParamBlock<cuvil_pad_params> kernelParams(const PadGeometry &g, const Shape &in, int64_t fillBits) {
  ParamBlock<cuvil_pad_params> params;
  size_t lead = CUVIL_MAX_RANK - in.size();
  for (size_t d = 0; d < CUVIL_MAX_RANK; ++d) {
    params.set(params->out_shape[d], d < lead ? Dim(1) : g.outShape[d - lead]);
    params.set(params->in_shape[d], d < lead ? Dim(1) : in[d - lead]);
    params->pads_begin[d] = d < lead ? 0 : g.padsBegin[d - lead];
  }
  params->mode = g.mode;
  params->fill_bits = fillBits;
  return params;
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  PadGeometry g = *geometry(node, x.shape());
  Expected<int64_t> bits = fillBits(node, x.dtype());
  CUVIL_TRY(bits.status());
  size_t size = dtypeSize(x.dtype());
  std::vector<int64_t> inStrides = staticStrides(x.shape()), inDims = x.dims();
  std::vector<int64_t> outDims = out[0].dims(), index(outDims.size(), 0);
  for (int64_t flat = 0, n = out[0].numElements(); flat < n; ++flat) {
    int64_t source = 0;
    bool outside = false;
    for (size_t d = 0; d < index.size(); ++d) {
      int64_t i = index[d] - g.padsBegin[d], dim = inDims[d];
      if (g.mode == 2)
        i = std::clamp<int64_t>(i, 0, dim - 1);
      else if (g.mode == 3)
        i = ((i % dim) + dim) % dim;
      else if (g.mode == 1)
        i = dim == 1 ? 0 : [&] {
          int64_t period = 2 * dim - 2, r = ((i % period) + period) % period;
          return r >= dim ? period - r : r;
        }();
      outside |= i < 0 || i >= dim;
      source += i * inStrides[d];
    }
    uint8_t *to = out[0].mutableBytes() + flat * int64_t(size);
    if (outside)
      std::memcpy(to, &*bits, size);
    else
      std::memcpy(to, x.bytes() + source * int64_t(size), size);
    for (int64_t d = int64_t(index.size()) - 1; d >= 0; --d) {
      if (++index[size_t(d)] < outDims[size_t(d)])
        break;
      index[size_t(d)] = 0;
    }
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  Expected<PadGeometry> g = geometry(node, x->type().shape);
  CUVIL_TRY(g.status());
  Expected<int64_t> bits = fillBits(node, x->type().dtype);
  CUVIL_TRY(bits.status());
  Shape in = x->type().shape;
  mergeUnpaddedDims(*g, in);
  if (in.size() > CUVIL_MAX_RANK)
    return Status::error(fmt::format("rank above {} is not supported", CUVIL_MAX_RANK));
  const Shape &out = g->outShape;
  // One task per output row (rows with no columns: none; a scalar is one).
  Dim rows = out.empty()        ? Dim(1)
             : out.back().is(0) ? Dim(0)
                                : numElements(std::span(out).first(out.size() - 1));
  Expected<const KernelRef *> kernel = padKernel(dtypeSize(x->type().dtype));
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(x), KernelArg::pointer(node.output(0)),
                         KernelArg::params(kernelParams(*g, in, *bits))},
                        rows);
}

} // namespace

extern const OpDefinition kPadOp = {
    OpSchema{"Pad", 2, 4, 1, 1, {{"mode", AttrKind::String}}, infer, eval}, lower};

} // namespace cuvil::ops
