// StringConstant (internal): a string tensor of the attribute `shape` whose
// elements are the strings of a constant table (its UTF-8 bytes end to
// end, u8, and where each starts, i64, one more entry than strings). IR
// constants hold no strings (DType.h), so the importer turns a string
// initializer or Constant into this node; its elements point into the
// constant bytes and are set at each run (one store per string).
#include "OpSupport.h"

namespace cuvil::ops {
namespace {

constexpr size_t kBytes = 0, kStarts = 1;

Status infer(InferContext &ctx) {
  const Tensor *bytes = ctx.constantInput(kBytes), *starts = ctx.constantInput(kStarts);
  if (!bytes || !starts || bytes->dtype() != DType::U8 || starts->dtype() != DType::I64)
    return ctx.error("the table must be constants: u8 bytes and i64 starts");
  Shape shape;
  int64_t elements = 1;
  for (int64_t dim : ctx.node().getInts("shape")) {
    if (dim < 0)
      return ctx.error("shape has a negative dim {}", dim);
    shape.push_back(dim);
    elements *= dim;
  }
  std::vector<int64_t> at = starts->toInt64s();
  if (int64_t(at.size()) != elements + 1)
    return ctx.error("the table has {} strings for {} elements", int64_t(at.size()) - 1, elements);
  for (size_t k = 0; k + 1 < at.size(); ++k)
    if (at[k] < 0 || at[k + 1] < at[k] || at[k + 1] > bytes->numElements())
      return ctx.error("the table's starts do not split its bytes");
  ctx.setOutput(0, TensorType{DType::String, shape});
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  return ctx.callKernel(kStringConstantKernel,
                        {KernelArg::pointer(node.input(kBytes)),
                         KernelArg::pointer(node.input(kStarts)),
                         KernelArg::pointer(node.output(0))},
                        node.output(0)->type().numElements());
}

} // namespace

extern const OpDefinition kStringConstantOp = {
    OpSchema{"StringConstant",
             2,
             2,
             1,
             1,
             {{"shape", AttrKind::Ints, std::nullopt, /*required=*/true}},
             infer,
             nullptr},
    lower};

} // namespace cuvil::ops
