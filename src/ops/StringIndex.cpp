// StringIndex (internal): each string of x replaced by its index in a
// constant table of strings, or -1 when it is not there; i64, x's shape.
// The table arrives as two constants: its UTF-8 bytes end to end (u8) and
// where each string starts (i64, one more entry than strings), sorted
// bytewise so that the kernel searches it in halves. The importer makes
// TfIdfVectorizer's string pool a table and its tokens their indices,
// which the integer kernel then counts.
#include "OpSupport.h"
#include "cuvil/kernels/Strings.h"

#include <string_view>

namespace cuvil::ops {
namespace {

constexpr size_t kBytes = 1, kStarts = 2;

// The table's strings, or an error when its constants do not form a sorted table.
Expected<std::vector<std::string>> tableStrings(const Tensor &bytes, const Tensor &starts) {
  std::vector<int64_t> at = starts.toInt64s();
  std::vector<std::string> strings;
  for (size_t k = 0; k + 1 < at.size(); ++k) {
    if (at[k] < 0 || at[k + 1] < at[k] || at[k + 1] > bytes.numElements())
      return Status::error("the table's starts do not split its bytes");
    std::string text;
    for (int64_t b = at[k]; b < at[k + 1]; ++b)
      text += char(uint8_t(bytes.getInt(b)));
    if (!strings.empty() && !(std::string_view(strings.back()) < std::string_view(text)))
      return Status::error("the table is not sorted and unique");
    strings.push_back(std::move(text));
  }
  if (at.empty())
    return Status::error("the table has no starts");
  return strings;
}

Status infer(InferContext &ctx) {
  if (ctx.inputDType(0) != DType::String)
    return ctx.error("takes strings, not {}", dtypeName(ctx.inputDType(0)));
  const Tensor *bytes = ctx.constantInput(kBytes), *starts = ctx.constantInput(kStarts);
  if (!bytes || !starts)
    return ctx.error("the table must be constants");
  Expected<std::vector<std::string>> table = tableStrings(*bytes, *starts);
  if (!table)
    return ctx.error("{}", table.status().message());
  ctx.setOutput(0, TensorType{DType::I64, ctx.inputShape(0)});
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0);
  cuvil_string_index_params params{node.input(kStarts)->type().numElements().constant() - 1};
  return ctx.callKernel(kStringIndexKernel,
                        {KernelArg::pointer(x), KernelArg::pointer(node.input(kBytes)),
                         KernelArg::pointer(node.input(kStarts)),
                         KernelArg::pointer(node.output(0)), KernelArg::params(params)},
                        x->type().numElements());
}

} // namespace

extern const OpDefinition kStringIndexOp = {OpSchema{"StringIndex", 3, 3, 1, 1, {}, infer, nullptr},
                                            lower};

} // namespace cuvil::ops
