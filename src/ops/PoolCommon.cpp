#include "PoolCommon.h"

#include "cuvil/kernels/Pool.h"

#include <algorithm>
#include <cmath>

namespace cuvil::ops {
namespace {

Expected<WindowGeometry> poolGeometry(const Node &node, const Shape &x) {
  if (x.size() < 3)
    return Status::error("input must be N-C-spatial");
  if (!node.hasAttr("kernel_shape"))
    return Status::error("kernel_shape is required");
  return windowGeometry(node, Shape(x.begin() + 2, x.end()), node.getInts("kernel_shape"),
                        node.getInt("ceil_mode", 0) != 0);
}

// A row-major offset over `extents` renumbered with the first axis fastest
// (storage_order 1).
int64_t firstAxisFastest(int64_t offset, const std::vector<int64_t> &extents) {
  std::vector<int64_t> coordinates(extents.size());
  for (size_t d = extents.size(); d-- > 0;) {
    coordinates[d] = offset % extents[d];
    offset /= extents[d];
  }
  int64_t result = 0, step = 1;
  for (size_t d = 0; d < extents.size(); ++d) {
    result += coordinates[d] * step;
    step *= extents[d];
  }
  return result;
}

// 3-D windows, and max pooling of 8-bit tensors at any rank: the plain
// NCDHW kernel of the element type, with MaxPool's Indices too.
Status lowerPool3d(const Node &node, LoweringContext &ctx, const WindowGeometry &geometry,
                   PoolKind kind, const KernelRef &kernel) {
  const Value *x = node.input(0);
  WindowGeometry::Window3D g = geometry.as3D();
  ParamBlock<cuvil_pool3d_params> params;
  setWindow(params, params->window, g);
  params->is_max = kind == PoolKind::Max ? 1 : 0;
  params->count_include_pad = node.getInt("count_include_pad", 0);
  params->column_major = node.getInt("storage_order", 0) != 0 ? 1 : 0;
  const Value *indices = node.numOutputs() > 1 ? node.output(1) : nullptr;
  return ctx.callKernel(kernel,
                        {KernelArg::pointer(x), KernelArg::pointer(node.output(0)),
                         KernelArg::optionalPointer(indices), KernelArg::params(params)},
                        x->type().shape[0] * x->type().shape[1] * g.OD * g.plane.OH);
}

} // namespace

Status inferPool(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  Expected<WindowGeometry> g = poolGeometry(ctx.node(), x);
  CUVIL_TRY(g.status());
  Shape out = {x[0], x[1]};
  out.insert(out.end(), g->output.begin(), g->output.end());
  ctx.setOutput(0, TensorType{ctx.inputDType(0), out});
  if (ctx.node().numOutputs() > 1) // MaxPool's Indices
    ctx.setOutput(1, TensorType{DType::I64, out});
  return Status::success();
}

// Window by window over the N x C planes, in any rank; the indices are
// flat in x, their spatial part row-major or with storage_order 1
// column-major.
Status evalPool(const Node &node, const Tensor &x, Tensor &y, Tensor *indices, PoolKind kind) {
  Expected<WindowGeometry> geometry = poolGeometry(node, x.shape());
  CUVIL_TRY(geometry.status());
  StaticWindow g(*geometry);
  bool countPad = node.getInt("count_include_pad", 0) != 0;
  bool columnMajor = node.getInt("storage_order", 0) != 0;
  int64_t planes = x.dim(0) * x.dim(1), inVolume = product(g.input), yi = 0;
  size_t rank = g.input.size();
  for (int64_t plane = 0; plane < planes; ++plane)
    forEachIndex(g.output, [&](const std::vector<int64_t> &o) {
      double acc = kind == PoolKind::Max ? -INFINITY : 0.0;
      int64_t count = 0, at = -1;
      forEachIndex(g.kernel, [&](const std::vector<int64_t> &tap) {
        int64_t offset = g.inputOffset(o, tap);
        if (offset < 0)
          return;
        double v = x.getDouble(plane * inVolume + offset);
        if (kind == PoolKind::Max && (at < 0 || v > acc))
          at = offset;
        acc = kind == PoolKind::Max ? std::max(acc, v) : acc + v;
        ++count;
      });
      if (indices)
        indices->setInt(yi, at < 0 ? -1
                                   : plane * inVolume +
                                         (columnMajor ? firstAxisFastest(at, g.input) : at));
      if (kind == PoolKind::Average) {
        if (countPad) { // the window clipped to the padded input, as ONNX Runtime counts it
          count = 1;
          for (size_t d = 0; d < rank; ++d) {
            int64_t start = o[d] * g.strides[d] - g.padsBegin[d];
            count *= std::min(start + g.kernel[d], g.input[d] + g.padsEnd[d]) - start;
          }
        }
        acc = count ? acc / double(count) : 0.0;
      }
      y.setDouble(yi++, acc);
    });
  return Status::success();
}

Status lowerPool(const Node &node, LoweringContext &ctx, PoolKind kind) {
  const Value *x = node.input(0);
  DType dtype = x->type().dtype;
  bool eightBit = kind == PoolKind::Max && (dtype == DType::U8 || dtype == DType::I8);
  if (dtype != DType::F32 && !eightBit)
    return Status::error(kind == PoolKind::Max ? "only f32, i8 and u8 are supported"
                                               : "only f32 is supported");
  Expected<WindowGeometry> geometry = poolGeometry(node, x->type().shape);
  CUVIL_TRY(geometry.status());
  if (geometry->input.size() > 3)
    return Status::error("only 1-D, 2-D and 3-D pooling is supported");
  if (eightBit)
    return lowerPool3d(node, ctx, *geometry, kind,
                       dtype == DType::U8 ? kMaxPool3dU8Kernel : kMaxPool3dI8Kernel);
  if (geometry->input.size() == 3)
    return lowerPool3d(node, ctx, *geometry, kind, kPool3dKernel);
  WindowGeometry::Window2D g = geometry->as2D();
  ParamBlock<cuvil_pool_params> params;
  setWindow(params, params->window, g);
  params->is_max = kind == PoolKind::Max ? 1 : 0;
  params->count_include_pad = node.getInt("count_include_pad", 0);
  if (node.numOutputs() > 1)
    return ctx.callKernel(kMaxPoolIndicesKernel,
                          {KernelArg::pointer(x), KernelArg::pointer(node.output(0)),
                           KernelArg::pointer(node.output(1)), KernelArg::params(params),
                           KernelArg::constant(node.getInt("storage_order", 0) != 0)},
                          x->type().shape[0] * x->type().shape[1] * g.OH);
  return ctx.callKernel(
      kPool2dKernel,
      {KernelArg::pointer(x), KernelArg::pointer(node.output(0)), KernelArg::params(params)},
      x->type().shape[0] * x->type().shape[1] * g.OH);
}

} // namespace cuvil::ops
