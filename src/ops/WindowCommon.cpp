#include "WindowCommon.h"
#include "cuvil/kernels/Signal.h"

#include <cmath>
#include <numbers>

namespace cuvil::ops {
namespace {

Expected<Dim> windowSize(const Node &node) {
  Expected<std::vector<Dim>> size = dimsInput(node, 0, "size");
  CUVIL_TRY(size.status());
  if (size->size() != 1)
    return Status::error(fmt::format("size must be a scalar, has {} elements", size->size()));
  const Dim &n = size->front();
  if (n.min() < 0)
    return Status::error(fmt::format("size must not be negative, is {}{}", n,
                                     n.isConstant() ? "" : fmt::format(" (from {})", n.min())));
  return size->front();
}

} // namespace

std::vector<AttrSpec> cosineWindowAttributes() {
  return {{"periodic", AttrKind::Int, Attribute(int64_t(1))},
          {"output_datatype", AttrKind::Int, Attribute(int64_t(1))}};
}

Status inferCosineWindow(InferContext &ctx) {
  if (!isSignedInt(ctx.inputDType(0)))
    return ctx.error("size must be an integer, is {}", dtypeName(ctx.inputDType(0)));
  Expected<DType> dtype = numericTypeAttribute(ctx.node(), "output_datatype");
  CUVIL_TRY(dtype.status());
  Expected<Dim> size = windowSize(ctx.node());
  CUVIL_TRY(size.status());
  ctx.setOutput(0, TensorType{*dtype, {*size}});
  return Status::success();
}

Status evalCosineWindow(const CosineWindow &window, const Node &node, std::span<Tensor> out) {
  Tensor &y = out[0];
  int64_t size = y.numElements(), periods = node.getInt("periodic") ? size : size - 1;
  double step = 2 * std::numbers::pi / double(periods);
  for (int64_t n = 0; n < size; ++n) {
    double angle = double(n) * step;
    double value = window.a0 - window.a1 * std::cos(angle) + window.a2 * std::cos(2 * angle);
    y.setDouble(n, std::isnan(value) && !isFloat(y.dtype()) ? 0 : value);
  }
  return Status::success();
}

Status lowerCosineWindow(const CosineWindow &window, const Node &node, LoweringContext &ctx) {
  const Value *y = node.output(0);
  DType dtype = y->type().dtype;
  Expected<const KernelRef *> kernel = windowKernel(dtype);
  if (!kernel.ok())
    return Status::error(fmt::format("a window of {} elements known only at run time is computed "
                                     "in f32 or f64, not {}",
                                     y->type().shape[0], dtypeName(dtype)));
  ParamBlock<cuvil_window_params> params;
  params.set(params->size, y->type().shape[0]);
  params->periodic = node.getInt("periodic") != 0;
  params->a0 = float(window.a0);
  params->a1 = float(window.a1);
  params->a2 = float(window.a2);
  return ctx.callKernel(**kernel, {KernelArg::pointer(y), KernelArg::params(params)},
                        ceilDiv(y->type().shape[0], CUVIL_WINDOW_BLOCK));
}

} // namespace cuvil::ops
