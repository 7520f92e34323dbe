// Shared by MatMulInteger and QLinearMatMul: numpy matmul of 8-bit operands
// less their zero points, accumulated in i32 (wrapping), with the zero
// points (and scales) of A per tensor or per row, of B per tensor or per
// column; and the blocking of the integer GEMM kernel, which the integer
// convolutions share.
#pragma once

#include "MatMulCommon.h"
#include "cuvil/kernels/IntegerGemm.h"

#include <functional>

namespace cuvil::ops {

// Where an integer matmul's operands are among the node's inputs.
struct IntegerMatMulInputs {
  size_t a, b;
  size_t aZero, bZero; // optional for MatMulInteger
  std::optional<size_t> aScale, bScale;
};

// An operand's zero point (and scale, of the same shape) over the batch.
struct OperandQuant {
  std::vector<Dim> batchStrides; // one per batch dim of the product, 0 where broadcast
  Dim stride = 0;                // per row of A or column of B; 0 per tensor
};

struct IntegerMatMulGeometry {
  MatMulGeometry product;
  OperandQuant a, b;
};

// The attributes pack-matmul sets on a MatMulInteger or QLinearMatMul
// whose constant B it packed (cuvil.PackIntegerPanels): b_packed = 1 and
// b_columns = N; B's [K, N] is then K from A and N, and its input the
// packed panels (a model's own nodes have neither).
std::vector<AttrSpec> packedOperandAttributes();

// The product's geometry with its operands' quantization (an absent zero
// point is per tensor); errors name the input that does not fit.
Expected<IntegerMatMulGeometry> integerMatMulGeometry(const Node &node,
                                                      const IntegerMatMulInputs &inputs);
// Checks the operands' types (u8 or i8, zero points and scales of theirs)
// and types result 0 as `result` with the product's shape.
Status inferIntegerMatMul(InferContext &ctx, const IntegerMatMulInputs &inputs, DType result);

// The reference: calls visit(flat, acc, aEntry, bEntry) for each element of
// the product, its accumulator, and the entries of A's and B's zero point
// and scale it used.
using IntegerProductVisitor = std::function<void(int64_t, int32_t, int64_t, int64_t)>;
Status evalIntegerMatMul(const Node &node, const IntegerMatMulInputs &inputs,
                         std::span<const Tensor *const> in, const IntegerProductVisitor &visit);

// The work of `macs` byte multiply-adds on the tiles of `products`, as the
// f32 flops that take as long (the work estimate the thread split and the
// profile's bound read): the 512-bit vpdpbusd does 64 an instruction, four
// per FMA lane at the FMA's rate; the other tiles are counted one per lane.
Dim integerWorkFlops(const Dim &macs, int64_t products);

// The integer GEMM kernel's parameters, task count and multiply-adds (as
// flops, integerWorkFlops) for the node.
struct IntegerGemmCall {
  ParamBlock<cuvil_igemm_params> params;
  Dim tasks, flops;
};
Expected<IntegerGemmCall> integerGemmCall(const Node &node, const LoweringContext &ctx,
                                          const IntegerMatMulInputs &inputs);

// Where K runs in a weight tensor: along the rows of a convolution's
// [M, K...], down the columns of a GEMM's B [..., K, N].
enum class WeightLines { Rows, Columns };

// How the tiles multiply the u8 `image` by the i8 `weights` on `cpu`
// (cuvil_integer_products): a byte path needs the weights' zero point
// absent or constant zeros; vpdpbusd is exact for any weights; vpmaddubsw
// for constant ones, two of its sums added in i16 where every line of
// weights meets pairedBytesExact (x86-64, where vpmaddwd widens them in
// one step), else one where every |w| <= 64 (255 * 64 * 2 < 2^15); else
// i16 pairs.
int64_t integerProducts(const CpuModel &cpu, const Value *image, const Value *weights,
                        const Value *weightZero, WeightLines lines);

// The integer convolutions' and GEMMs' kernels: 8-bit products (vpdpbusd
// where the CPU has VNNI).
DotProducts integerDotProducts(const Node &node);

// Rows per task, register tile and K chunk for a product of `rows` rows on
// `cpu` whose tiles multiply as `products` says (the integer convolutions'
// too).
cuvil_igemm_blocking chooseIntegerBlocking(const CpuModel &cpu, int64_t rows, int64_t products);

// Whether a scale or zero point has one element (the output's must).
Status checkScalarInput(const InferContext &ctx, size_t input, std::string_view what);

} // namespace cuvil::ops
