// DFT: Fourier transforms along one axis of a real ([..., 1]) or complex
// ([..., 2]) signal, of dft_length points (by default the axis' extent;
// a longer signal is truncated, a shorter one zero-padded), `inverse`
// (conjugate twiddles, scaled by 1 / length), `onesided` (the first
// length / 2 + 1 outputs of a real signal's). The IR has opset 20's form,
// the axis an input (default -2); opset 17's attribute (default 1) becomes
// that input (OpsetAdapters). The batch and the signal may be symbolic;
// the length must be known. canonicalize makes it a cuvil.FFT, so it has
// no lowering of its own; the reference folds constant ones.
#include "FourierCommon.h"

namespace cuvil::ops {
namespace {

Expected<TransformGeometry> geometry(const Node &node, const Shape &signal) {
  int64_t rank = int64_t(signal.size()), axis = -2;
  if (node.hasInput(2)) {
    Expected<int64_t> given = knownScalar(node, 2, "axis");
    CUVIL_TRY(given.status());
    axis = *given;
  }
  if (axis < -rank || axis >= rank - 1 || axis == -1)
    return Status::error(fmt::format("axis {} is not a signal axis of a rank-{} input (the last "
                                     "dim holds the real and imaginary parts)",
                                     axis, rank));
  axis = axis < 0 ? axis + rank : axis;
  int64_t length;
  if (node.hasInput(1)) {
    if (!node.input(1)->type().shape.empty())
      return Status::error(fmt::format("dft_length must be a scalar, is [{}]",
                                       shapeToString(node.input(1)->type().shape)));
    Expected<int64_t> given = knownScalar(node, 1, "dft_length");
    CUVIL_TRY(given.status());
    length = *given;
  } else if (signal[size_t(axis)].isConstant()) {
    length = signal[size_t(axis)].constant();
  } else {
    return Status::error(fmt::format("the transform length must be known at compile time: axis "
                                     "{} has {} elements; give dft_length",
                                     axis, signal[size_t(axis)]));
  }
  bool onesided = node.getInt("onesided") != 0;
  if (onesided && node.getInt("inverse") != 0)
    return Status::error("onesided and inverse cannot both be set");
  if (onesided && signal.back().is(2))
    return Status::error("onesided needs a real signal (last dim 1)");
  return transformGeometry(signal, axis, length, /*frameStep=*/0, onesided);
}

Status infer(InferContext &ctx) {
  if (!isFloat(ctx.inputDType(0)))
    return ctx.error("element type {} is not supported", dtypeName(ctx.inputDType(0)));
  for (size_t i : {1, 2})
    if (ctx.hasInput(i) && !isSignedInt(ctx.inputDType(i)))
      return ctx.error("input {} must be an integer, is {}", i, dtypeName(ctx.inputDType(i)));
  Expected<TransformGeometry> g = geometry(ctx.node(), ctx.inputShape(0));
  CUVIL_TRY(g.status());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), g->output});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  TransformGeometry g = *geometry(node, in[0]->shape());
  evalTransform(g, *in[0], nullptr, node.getInt("inverse") != 0, out[0]);
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize makes DFT a cuvil.FFT");
}

} // namespace

extern const OpDefinition kDFTOp = {OpSchema{"DFT",
                                             1,
                                             3,
                                             1,
                                             1,
                                             {{"inverse", AttrKind::Int, Attribute(int64_t(0))},
                                              {"onesided", AttrKind::Int, Attribute(int64_t(0))}},
                                             infer,
                                             eval},
                                    lower};

} // namespace cuvil::ops
