// STFT: the Fourier transforms of frames of a real or complex signal
// [batch, samples, 1 or 2] (or [batch, samples], real): frame f is
// frame_length samples from f * frame_step on, times the window when there
// is one, floor((samples - frame_length) / frame_step) + 1 frames; the
// result [batch, frames, bins, 2] keeps frame_length / 2 + 1 bins when
// `onesided` (the default; of a complex signal too, as ONNX Runtime
// does), all of them otherwise. The frame length is
// frame_length, or the window's extent, which must then agree. The batch
// and the signal may be symbolic. canonicalize makes it a cuvil.FFT, so it
// has no lowering of its own; the reference folds constant ones.
#include "FourierCommon.h"

namespace cuvil::ops {
namespace {

Expected<TransformGeometry> geometry(const Node &node, const Shape &signal, const Shape *window) {
  if (signal.size() != 2 && signal.size() != 3)
    return Status::error(fmt::format("the signal must be [batch, samples, 1 or 2] or [batch, "
                                     "samples], is [{}]",
                                     shapeToString(signal)));
  Expected<int64_t> step = knownScalar(node, 1, "frame_step");
  CUVIL_TRY(step.status());
  if (*step < 1)
    return Status::error(fmt::format("frame_step must be positive, is {}", *step));
  if (window && (window->size() != 1 || !(*window)[0].isConstant()))
    return Status::error(
        fmt::format("the window must be a static 1-D tensor, is [{}]", shapeToString(*window)));
  int64_t length;
  if (node.hasInput(3)) {
    Expected<int64_t> given = knownScalar(node, 3, "frame_length");
    CUVIL_TRY(given.status());
    length = *given;
    if (window && !(*window)[0].is(length))
      return Status::error(
          fmt::format("the window has {} elements, frame_length is {}", (*window)[0], length));
  } else if (window) {
    length = (*window)[0].constant();
  } else {
    return Status::error("the frame length is needed: give frame_length or a window");
  }
  return transformGeometry(signal, 1, length, *step, node.getInt("onesided") != 0);
}

Status infer(InferContext &ctx) {
  DType dtype = ctx.inputDType(0);
  if (!isFloat(dtype))
    return ctx.error("element type {} is not supported", dtypeName(dtype));
  if (ctx.hasInput(2) && ctx.inputDType(2) != dtype)
    return ctx.error("the window is {}, the signal {}", dtypeName(ctx.inputDType(2)),
                     dtypeName(dtype));
  for (size_t i : {1, 3})
    if (ctx.hasInput(i) && !isSignedInt(ctx.inputDType(i)))
      return ctx.error("input {} must be an integer, is {}", i, dtypeName(ctx.inputDType(i)));
  Expected<TransformGeometry> g =
      geometry(ctx.node(), ctx.inputShape(0), ctx.hasInput(2) ? &ctx.inputShape(2) : nullptr);
  CUVIL_TRY(g.status());
  ctx.setOutput(0, TensorType{dtype, g->output});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor *window = in.size() > 2 ? in[2] : nullptr;
  TransformGeometry g = *geometry(node, in[0]->shape(), window ? &window->shape() : nullptr);
  evalTransform(g, *in[0], window, /*inverse=*/false, out[0]);
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: canonicalize makes STFT a cuvil.FFT");
}

} // namespace

extern const OpDefinition kSTFTOp = {
    OpSchema{"STFT", 2, 4, 1, 1, {{"onesided", AttrKind::Int, Attribute(int64_t(1))}}, infer, eval},
    lower};

} // namespace cuvil::ops
