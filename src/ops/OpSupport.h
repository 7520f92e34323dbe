// Helpers shared by op definitions: axis and broadcast rules, the strided
// iteration spaces kernels take, and the registration record of an op.
#pragma once

#include "cuvil/backend/Lowering.h"
#include "cuvil/ir/Broadcast.h"
#include "cuvil/ir/OpSchema.h"
#include "cuvil/kernels/KernelParams.h"

#include <array>
#include <string>
#include <vector>

namespace cuvil::ops {

// Everything Cuvil knows about one op; see AllOps.cpp for the table.
struct OpDefinition {
  OpSchema schema;
  LowerFn lower;
};

// Axis in [-rank, rank) to [0, rank).
Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank);
Expected<std::vector<int64_t>> normalizeAxes(const std::vector<int64_t> &axes, int64_t rank);

// A rank-6 iteration space with one stride vector per operand, after merging
// dimensions that are contiguous for every operand.
struct StridedSpace {
  std::vector<int64_t> shape;                // 6 entries
  std::vector<std::vector<int64_t>> strides; // per operand, 6 entries
  int64_t rows() const { return shape[0] * shape[1] * shape[2] * shape[3] * shape[4]; }
};
Expected<StridedSpace> makeStridedSpace(const Shape &shape,
                                        const std::vector<std::vector<int64_t>> &strides);

// Calls the rank-6 strided copy kernel: dst[i] = src[i] over `shape`.
Status emitStridedCopy(LoweringContext &ctx, const Value *src, int64_t srcByteOffset,
                       const std::vector<int64_t> &srcStrides, const Value *dst,
                       int64_t dstByteOffset, const std::vector<int64_t> &dstStrides,
                       const Shape &shape);
// Copies `src` into `dst` (same bytes) unless the planner gave both the same
// storage; the lowering of every view op (Reshape, Squeeze, ...).
Status lowerViewOrCopy(const Node &node, LoweringContext &ctx);

// "f32", "i64", ... as used in kernel names.
std::string kernelTypeSuffix(DType dtype);

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
