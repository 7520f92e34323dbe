// Size: the input's element count as an i64 scalar. Like Shape it needs
// only the input's type: folded when the shape is static, else the count's
// expression is the result's dim value, which the code generator stores.
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

Status infer(InferContext &ctx) {
  ctx.setOutput(0, TensorType{DType::I64, {}});
  ctx.setOutputDims(0, {ctx.inputType(0).numElements()});
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const>, std::span<Tensor> out) {
  int64_t count = node.input(0)->type().numElements().constant();
  out[0] = Tensor::fromInt64s(std::span(&count, 1), {});
  return Status::success();
}

Status lower(const Node &, LoweringContext &) {
  return Status::error("internal error: Size is folded or stored from its dim value");
}

} // namespace

extern const OpDefinition kSizeOp = {OpSchema{"Size",
                                              1,
                                              1,
                                              1,
                                              1,
                                              {},
                                              infer,
                                              eval,
                                              /*isView=*/false,
                                              /*foldsFromTypes=*/true},
                                     lower};

} // namespace cuvil::ops
