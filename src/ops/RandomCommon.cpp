#include "RandomCommon.h"

#include "Kernels.h"

#include <bit>

namespace cuvil::ops {

Status inferRandom(InferContext &ctx) {
  const Node &node = ctx.node();
  const bool like = node.numInputs() > 0;
  DType dtype = like ? ctx.inputDType(0) : DType::F32;
  if (node.hasAttr("dtype")) {
    std::optional<DType> given = dtypeFromOnnxCode(int(node.getInt("dtype")));
    if (!given)
      return ctx.error("dtype {} is not a tensor type", node.getInt("dtype"));
    dtype = *given;
  }
  if (dtype != DType::F32 && dtype != DType::F64 && dtype != DType::F16)
    return ctx.error("draws float16, float or double numbers, not {}{}", dtypeName(dtype),
                     node.hasAttr("dtype") ? "" : " (give dtype)");
  if (like) {
    ctx.setOutput(0, TensorType{dtype, ctx.inputShape(0)});
    return Status::success();
  }
  Shape shape;
  for (int64_t dim : node.getInts("shape")) {
    if (dim < 0)
      return ctx.error("shape has a negative dimension {}", dim);
    shape.push_back(dim);
  }
  ctx.setOutput(0, TensorType{dtype, shape});
  return Status::success();
}

cuvil_random_params randomParams(const Node &node, cuvil_random_distribution distribution, float a,
                                 float b) {
  cuvil_random_params params{};
  if (node.hasAttr("seed")) {
    params.seeded = 1;
    params.seed = int64_t(std::bit_cast<uint32_t>(node.getFloat("seed")));
  }
  // FNV-1a of the name.
  uint64_t stream = 0xcbf29ce484222325ull;
  for (char c : node.output(0)->name())
    stream = (stream ^ uint8_t(c)) * 0x100000001b3ull;
  params.stream = int64_t(stream);
  params.distribution = distribution;
  params.a = a;
  params.b = b;
  return params;
}

namespace {

Status lowerFill(const Node &node, LoweringContext &ctx, cuvil_random_distribution distribution,
                 float a, float b) {
  const Value *y = node.output(0);
  Expected<const KernelRef *> kernel = randomKernel(y->type().dtype);
  CUVIL_TRY(kernel.status());
  return ctx.callKernel(**kernel,
                        {KernelArg::pointer(y), KernelArg::randomState(),
                         KernelArg::params(randomParams(node, distribution, a, b))},
                        y->type().numElements());
}

} // namespace

Status lowerUniform(const Node &node, LoweringContext &ctx) {
  return lowerFill(node, ctx, CUVIL_RANDOM_UNIFORM, node.getFloat("low"), node.getFloat("high"));
}

Status lowerNormal(const Node &node, LoweringContext &ctx) {
  return lowerFill(node, ctx, CUVIL_RANDOM_NORMAL, node.getFloat("mean"), node.getFloat("scale"));
}

} // namespace cuvil::ops
