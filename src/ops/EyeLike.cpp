// EyeLike: a 2-D tensor of the input's shape with ones on diagonal k (0 the
// main one, positive above) and zeros elsewhere, of type `dtype` (default
// the input's). It needs only the input's type: static shapes fold, symbolic
// ones run the eye kernel.
#include "OpSupport.h"
#include "cuvil/kernels/DataMovement.h"

#include <cstring>

namespace cuvil::ops {
namespace {

Expected<DType> resultType(const Node &node, DType input) {
  if (!node.hasAttr("dtype"))
    return input;
  std::optional<DType> dtype = dtypeFromOnnxCode(int(node.getInt("dtype", 0)));
  if (!dtype)
    return Status::error(fmt::format("dtype {} is not supported", node.getInt("dtype", 0)));
  return *dtype;
}

Status infer(InferContext &ctx) {
  if (ctx.inputShape(0).size() != 2)
    return ctx.error("expects a 2-D input, got rank {}", ctx.inputShape(0).size());
  Expected<DType> dtype = resultType(ctx.node(), ctx.inputDType(0));
  CUVIL_TRY(dtype.status());
  ctx.setOutput(0, TensorType{*dtype, ctx.inputShape(0)});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const>, std::span<Tensor> out) {
  std::vector<int64_t> dims = out[0].dims();
  int64_t k = node.getInt("k", 0);
  for (int64_t i = 0; i < dims[0]; ++i)
    for (int64_t j = 0; j < dims[1]; ++j)
      out[0].setDouble(i * dims[1] + j, j - i == k ? 1.0 : 0.0);
  return Status::success();
}

// Shapes known only at run time: the eye kernel, `one` as the bits of 1 in
// the result's type.
Status lower(const Node &node, LoweringContext &ctx) {
  const Value *y = node.output(0);
  Expected<const KernelRef *> kernel = eyeKernel(dtypeSize(y->type().dtype));
  CUVIL_TRY(kernel.status());
  Tensor one(TensorType{y->type().dtype, {}});
  one.setDouble(0, 1.0);
  ParamBlock<cuvil_eye_params> params;
  params.set(params->cols, y->type().shape[1]);
  params->k = node.getInt("k", 0);
  std::memcpy(&params->one_bits, one.bytes(), dtypeSize(y->type().dtype));
  return ctx.callKernel(**kernel, {KernelArg::pointer(y), KernelArg::params(params)},
                        y->type().shape[0]);
}

} // namespace

extern const OpDefinition kEyeLikeOp = {OpSchema{"EyeLike",
                                                 1,
                                                 1,
                                                 1,
                                                 1,
                                                 {{"dtype", AttrKind::Int}, {"k", AttrKind::Int}},
                                                 infer,
                                                 eval,
                                                 /*isView=*/false,
                                                 /*foldsFromTypes=*/true},
                                        lower};

} // namespace cuvil::ops
