// Det: the determinant of each square matrix in the last two dims of x
// ([*, n, n] -> [*]), by LU with partial pivoting in f64 (a singular
// matrix gives 0). The kernel keeps one matrix on its stack, so n is at
// most CUVIL_DET_MAX_ORDER (64); f32, as ONNX Runtime takes.
#include "OpSupport.h"
#include "cuvil/kernels/LinearAlgebra.h"

#include <cmath>

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  if (ctx.inputDType(0) != DType::F32)
    return ctx.error("element type {} is not supported (f32 is)", dtypeName(ctx.inputDType(0)));
  if (x.size() < 2)
    return ctx.error("input must have rank 2 or more, has {}", x.size());
  const Dim &n = x[x.size() - 1];
  if (!(x[x.size() - 2] == n))
    return ctx.error("matrices must be square, are {} x {}", x[x.size() - 2].str(), n.str());
  if (n.max() > CUVIL_DET_MAX_ORDER)
    return ctx.error("matrices of order {} are larger than the {} x {} the kernel takes", n.str(),
                     CUVIL_DET_MAX_ORDER, CUVIL_DET_MAX_ORDER);
  ctx.setOutput(0, TensorType{DType::F32, Shape(x.begin(), x.end() - 2)});
  return Status::success();
}

double determinant(std::vector<double> lu, int64_t n) {
  double det = 1.0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t pivot = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::fabs(lu[size_t(i * n + k)]) > std::fabs(lu[size_t(pivot * n + k)]))
        pivot = i;
    if (lu[size_t(pivot * n + k)] == 0.0)
      return 0.0;
    if (pivot != k) {
      for (int64_t j = 0; j < n; ++j)
        std::swap(lu[size_t(k * n + j)], lu[size_t(pivot * n + j)]);
      det = -det;
    }
    det *= lu[size_t(k * n + k)];
    for (int64_t i = k + 1; i < n; ++i) {
      double factor = lu[size_t(i * n + k)] / lu[size_t(k * n + k)];
      for (int64_t j = k + 1; j < n; ++j)
        lu[size_t(i * n + j)] -= factor * lu[size_t(k * n + j)];
    }
  }
  return det;
}

Status eval(const Node &, std::span<const Tensor *const> in, std::span<Tensor> out) {
  const Tensor &x = *in[0];
  int64_t n = x.dim(x.shape().size() - 1);
  for (int64_t m = 0; m < out[0].numElements(); ++m) {
    std::vector<double> matrix(size_t(n * n));
    for (int64_t i = 0; i < n * n; ++i)
      matrix[size_t(i)] = x.getDouble(m * n * n + i);
    out[0].setDouble(m, determinant(std::move(matrix), n));
  }
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  const Shape &shape = x->type().shape;
  return ctx.callKernel(kDetKernel,
                        {KernelArg::pointer(x), KernelArg::pointer(node.output(0)),
                         KernelArg::constant(shape.back())},
                        node.output(0)->type().numElements());
}

} // namespace

extern const OpDefinition kDetOp = {OpSchema{"Det", 1, 1, 1, 1, {}, infer, eval}, lower};

} // namespace cuvil::ops
