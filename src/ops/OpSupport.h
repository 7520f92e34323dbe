// Helpers shared by op definitions: axis and broadcast rules, the strided
// iteration spaces kernels take, and the registration record of an op.
#pragma once

#include "Kernels.h"
#include "cuvil/ir/Broadcast.h"
#include "cuvil/ir/OpSchema.h"
#include "cuvil/ir/WindowGeometry.h"
#include "cuvil/kernels/Common.h"
#include "cuvil/lowering/Lowering.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace cuvil::ops {

// What fused kernels apply for an elementwise op (the ops with
// ElementwiseFacts): a unary op's kernel function and reference, or a
// binary op's.
struct ElementwiseKernel {
  int64_t op = -1; // cuvil_unary_op or cuvil_binary_op
  // Unary, when the kernel function depends on the parameters (Gelu's mode).
  cuvil_unary (*kernelFor)(std::span<const float> params) = nullptr;
  double (*unaryReference)(double x, std::span<const float> params) = nullptr;
  double (*binaryReference)(double a, double b) = nullptr;
};

// Everything Cuvil knows about one op; see AllOps.cpp for the table.
struct OpDefinition {
  OpSchema schema;
  LowerFn lower;
  ElementwiseKernel elementwise = {};
  DotProductsFn dotProducts = nullptr; // the dot products its kernels use, if any
};

// `schema` with the plan of its target-dependent attributes.
inline OpSchema withTargetPlan(OpSchema schema, PlanFn plan) {
  schema.planForTarget = plan;
  return schema;
}

// The definition of `op`, or null (AllOps.cpp).
const OpDefinition *findOpDefinition(std::string_view op);

// The shape rule of an op whose result is its float input 0's type and
// which works along the `axis` attribute (LpNormalization, RMSNormalization).
Status inferFloatAlongAxis(InferContext &ctx);

// Axis in [-rank, rank) to [0, rank).
Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank);
Expected<std::vector<int64_t>> normalizeAxes(const std::vector<int64_t> &axes, int64_t rank);

// A shape as [outer, axis, inner] around one axis, as the kernels that work
// along an axis take it. `axis` is empty for a shape flattened whole.
struct AxisSplit {
  std::optional<int64_t> axis;
  Dim outer = 1, axisDim, inner = 1;
};
// Around `axis` (in [-rank, rank)).
Expected<AxisSplit> splitAtAxis(const Shape &shape, int64_t axis);
// Around the node's `axis` attribute, or flattened when it has none
// (Compress, Unique).
Expected<AxisSplit> splitAtOptionalAxis(const Node &node, const Shape &shape);

// The flops of a kernel call in which every element of `output` takes
// `multiplyAdds` multiply-adds (a convolution's input channels x taps, a
// GEMM's K): what LoweringContext::callKernel estimates the call's time by.
Dim multiplyAddFlops(const Value *output, const Dim &multiplyAdds);
// A convolution's: each output element takes the weights of its output
// channel, the weights' elements over `outputChannels` (packed or not).
Dim convolutionFlops(const Value *output, const Value *weights, const Dim &outputChannels);

// A static 2-D window as the convolution kernels take it (for ops whose
// shapes are static: the fused block, Winograd).
cuvil_window2d kernelWindow(const WindowGeometry::StaticWindow2D &g);

// A 2-D window as the convolution and pooling kernels take it, set into
// `field` of a parameter block.
template <typename Block>
void setWindow(ParamBlock<Block> &block, cuvil_window2d &field, const WindowGeometry::Window2D &g) {
  const std::pair<int64_t *, Dim> dims[] = {
      {&field.IH, g.H},  {&field.IW, g.W},  {&field.OH, g.OH}, {&field.OW, g.OW}, {&field.KH, g.KH},
      {&field.KW, g.KW}, {&field.SH, g.SH}, {&field.SW, g.SW}, {&field.DH, g.DH}, {&field.DW, g.DW},
      {&field.PT, g.PT}, {&field.PL, g.PL}, {&field.PB, g.PB}, {&field.PR, g.PR}};
  for (const auto &[to, dim] : dims)
    block.set(*to, dim);
}

// The product of `values` (1 when empty): an extent's element count.
int64_t product(const std::vector<int64_t> &values);

// A window of any rank over static extents, as the references walk it.
struct StaticWindow {
  std::vector<int64_t> input, output, kernel, strides, dilations, padsBegin, padsEnd;
  explicit StaticWindow(const WindowGeometry &g);
  // The row-major offset in the input (its spatial part) of tap `tap` of
  // output `out`, or -1 where the tap falls into the padding.
  int64_t inputOffset(const std::vector<int64_t> &out, const std::vector<int64_t> &tap) const;
};

// A 3-D window (1-D and 2-D ones as 1 x 1 x W and 1 x H x W), likewise.
template <typename Block>
void setWindow(ParamBlock<Block> &block, cuvil_window3d &field, const WindowGeometry::Window3D &g) {
  const std::pair<int64_t *, Dim> dims[] = {
      {&field.ID, g.D},  {&field.OD, g.OD}, {&field.KD, g.KD},  {&field.SD, g.SD},
      {&field.DD, g.DD}, {&field.PF, g.PF}, {&field.PBK, g.PBK}};
  for (const auto &[to, dim] : dims)
    block.set(*to, dim);
  setWindow(block, field.plane, g.plane);
}

// Calls fn(index) for every index of a tensor of static `extents`, in
// row-major order (the references' loops over windows of any rank).
template <typename Fn> void forEachIndex(const std::vector<int64_t> &extents, Fn fn) {
  for (int64_t extent : extents)
    if (extent <= 0)
      return;
  std::vector<int64_t> index(extents.size(), 0);
  while (true) {
    fn(std::as_const(index));
    int64_t d = int64_t(extents.size()) - 1;
    for (; d >= 0; --d) {
      if (++index[size_t(d)] < extents[size_t(d)])
        break;
      index[size_t(d)] = 0;
    }
    if (d < 0)
      return;
  }
}

// A rank-6 iteration space with one stride vector per operand, after merging
// dimensions that are contiguous for every operand.
struct StridedSpace {
  Shape shape;                           // CUVIL_MAX_RANK entries
  std::vector<std::vector<Dim>> strides; // per operand, CUVIL_MAX_RANK entries
  Dim rows() const { return shape[0] * shape[1] * shape[2] * shape[3] * shape[4]; }
  // Into a kernel parameter block's arrays.
  template <typename Block>
  void setShape(ParamBlock<Block> &block, int64_t (&to)[CUVIL_MAX_RANK]) const {
    for (size_t d = 0; d < CUVIL_MAX_RANK; ++d)
      block.set(to[d], shape[d]);
  }
  template <typename Block>
  void setStrides(ParamBlock<Block> &block, size_t operand, int64_t (&to)[CUVIL_MAX_RANK]) const {
    for (size_t d = 0; d < CUVIL_MAX_RANK; ++d)
      block.set(to[d], strides[operand][d]);
  }
};
Expected<StridedSpace> makeStridedSpace(const Shape &shape,
                                        const std::vector<std::vector<Dim>> &strides);

// Calls the rank-6 strided copy kernel: dst[i] = src[i] over `shape`.
Status emitStridedCopy(LoweringContext &ctx, const Value *src, const Dim &srcByteOffset,
                       const std::vector<Dim> &srcStrides, const Value *dst,
                       const Dim &dstByteOffset, const std::vector<Dim> &dstStrides,
                       const Shape &shape);
// The lowering of ops the passes fold at compile time (weight packing): an
// error, should one reach code generation.
Status lowerCompileTimeOnly(const Node &node, LoweringContext &ctx);

// Copies `src` into `dst` (same bytes) unless the planner gave both the same
// storage; the lowering of every view op (Reshape, Squeeze, ...).
Status lowerViewOrCopy(const Node &node, LoweringContext &ctx);

// The permutation attribute `name` of `node` (`fallback` when it has none),
// checked to be a permutation of [0, rank): Transpose's perm, Attention's
// operand perms.
Expected<std::vector<int64_t>> permutationAttr(const Node &node, const std::string &name,
                                               size_t rank, std::vector<int64_t> fallback);

// The references see constants, whose shapes are static: their strides.
std::vector<int64_t> staticStrides(const Shape &shape);
std::vector<int64_t> staticBroadcastStrides(const Shape &operand, const Shape &out);

// Reference-evaluation helper: out[i] = fn(i_a, i_b) over a broadcast.
template <typename Fn>
void forEachBroadcast(const Shape &outShape, const Shape &a, const Shape &b, Fn fn) {
  std::vector<int64_t> sa = staticBroadcastStrides(a, outShape);
  std::vector<int64_t> sb = staticBroadcastStrides(b, outShape);
  std::vector<int64_t> out = staticDims(outShape), index(out.size(), 0);
  int64_t total = numElements(outShape).constant();
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t ia = 0, ib = 0;
    for (size_t d = 0; d < out.size(); ++d) {
      ia += index[d] * sa[d];
      ib += index[d] * sb[d];
    }
    fn(flat, ia, ib);
    for (int64_t d = int64_t(out.size()) - 1; d >= 0; --d) {
      if (++index[d] < out[d])
        break;
      index[d] = 0;
    }
  }
}

// Reference twin of emitStridedCopy, offsets and strides in elements.
void copyStrided(const Tensor &src, int64_t srcOffset, const std::vector<int64_t> &srcStrides,
                 Tensor &dst, int64_t dstOffset, const std::vector<int64_t> &dstStrides,
                 const std::vector<int64_t> &shape);

// An attribute holding an ONNX type code that must be numeric (not bool):
// output_datatype of the windows and MelWeightMatrix.
Expected<DType> numericTypeAttribute(const Node &node, const char *name);

// Values of an input that must be known at compile time (axes, pads, ...):
// a constant's, or constant dim values (a shape computation on static
// dims, a graph input fixed by --value). The error names the input, and
// for a graph input the option that fixes it.
Expected<std::vector<int64_t>> constantInts(const Node &node, size_t input, const char *what);
// The same for a floating-point input (Resize's scales): a constant's
// values, the input fixed by --value included.
Expected<std::vector<double>> constantReals(const Node &node, size_t input, const char *what);
// Values of an integer input that are dims (a target shape, repeats, ...):
// a constant's, or the dims a shape computation or a --value-range carries.
Expected<std::vector<Dim>> dimsInput(const Node &node, size_t input, const char *what);

// Shape computations: the elements of small integer tensors that depend on
// symbolic dims (Shape's result, and Gather, Concat, Unsqueeze, arithmetic
// on it) are carried as dims on their values (Value::dimValues), so that
// the shape rules downstream (Reshape, Expand...) see expressions instead of
// data; the code generator stores them where a kernel reads them.
constexpr int64_t kMaxDimValues = 64;
// Input i's elements as dims: its dim values, or a small integer constant's
// values; nullopt otherwise.
std::optional<std::vector<Dim>> inputDimValues(const InferContext &ctx, size_t i);
// Whether result i may carry dim values (a small integer or bool tensor).
bool carriesDimValues(const InferContext &ctx, size_t i);
// Result 0 of a data movement op on input 0 (Unsqueeze, Reshape,
// Identity...): the same elements in the same order.
void forwardDimValues(InferContext &ctx);

} // namespace cuvil::ops
