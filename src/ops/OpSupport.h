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
};

// `schema` with the plan of its target-dependent attributes.
inline OpSchema withTargetPlan(OpSchema schema, PlanFn plan) {
  schema.planForTarget = plan;
  return schema;
}

// The definition of `op`, or null (AllOps.cpp).
const OpDefinition *findOpDefinition(std::string_view op);

// Axis in [-rank, rank) to [0, rank).
Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank);
Expected<std::vector<int64_t>> normalizeAxes(const std::vector<int64_t> &axes, int64_t rank);

// A 2-D window as the convolution and pooling kernels take it.
cuvil_window2d kernelWindow(const WindowGeometry::Window2D &g);

// A rank-6 iteration space with one stride vector per operand, after merging
// dimensions that are contiguous for every operand.
struct StridedSpace {
  std::vector<int64_t> shape;                // CUVIL_MAX_RANK entries
  std::vector<std::vector<int64_t>> strides; // per operand, CUVIL_MAX_RANK entries
  int64_t rows() const { return shape[0] * shape[1] * shape[2] * shape[3] * shape[4]; }
  // Into a kernel parameter block's arrays.
  void copyShape(int64_t (&to)[CUVIL_MAX_RANK]) const;
  void copyStrides(size_t operand, int64_t (&to)[CUVIL_MAX_RANK]) const;
};
Expected<StridedSpace> makeStridedSpace(const Shape &shape,
                                        const std::vector<std::vector<int64_t>> &strides);

// Calls the rank-6 strided copy kernel: dst[i] = src[i] over `shape`.
Status emitStridedCopy(LoweringContext &ctx, const Value *src, int64_t srcByteOffset,
                       const std::vector<int64_t> &srcStrides, const Value *dst,
                       int64_t dstByteOffset, const std::vector<int64_t> &dstStrides,
                       const Shape &shape);
// The lowering of ops the passes fold at compile time (weight packing): an
// error, should one reach code generation.
Status lowerCompileTimeOnly(const Node &node, LoweringContext &ctx);

// Copies `src` into `dst` (same bytes) unless the planner gave both the same
// storage; the lowering of every view op (Reshape, Squeeze, ...).
Status lowerViewOrCopy(const Node &node, LoweringContext &ctx);

// Reference-evaluation helper: out[i] = fn(i_a, i_b) over a broadcast.
template <typename Fn>
void forEachBroadcast(const Shape &out, const Shape &a, const Shape &b, Fn fn) {
  std::vector<int64_t> sa = broadcastStrides(a, out), sb = broadcastStrides(b, out);
  std::vector<int64_t> index(out.size(), 0);
  int64_t total = numElements(out);
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
                 const Shape &shape);

// Values of an input that must be a compile-time constant (a shape, axes...).
Expected<std::vector<int64_t>> constantInts(const InferContext &ctx, size_t input,
                                            const char *what);

} // namespace cuvil::ops
