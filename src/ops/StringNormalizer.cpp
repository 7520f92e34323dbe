// StringNormalizer: x (strings, [C] or [1, C]) without its stopwords, the
// case of the rest changed (case_change_action NONE, LOWER or UPPER); with
// stopwords the count comes from the data, a symbol of at most C (a result
// with no string left is one empty string). The importer's adapter makes
// the stopwords constant inputs: their UTF-8 bytes end to end (u8) and
// where each starts (i64, one more entry than words). Case changes, and
// stopword matching that ignores case, cover the letters whose two cases
// encode to UTF-8 of one length (cuvil_string_normalize): `locale` "C"
// or "POSIX" changes ASCII letters alone (as the C library does), any
// other those of ASCII, Latin, Greek and Cyrillic.
#include "OpSupport.h"
#include "cuvil/kernels/Strings.h"

#include <algorithm>

namespace cuvil::ops {
namespace {

constexpr size_t kStopwordBytes = 1, kStopwordStarts = 2;

struct CaseAction {
  std::string_view name;
  cuvil_case_change change;
};
constexpr CaseAction kCaseActions[] = {
    {"NONE", CUVIL_CASE_NONE}, {"LOWER", CUVIL_CASE_LOWER}, {"UPPER", CUVIL_CASE_UPPER}};

Expected<cuvil_case_change> caseChange(const Node &node) {
  std::string action = node.getString("case_change_action", "NONE");
  for (const CaseAction &entry : kCaseActions)
    if (entry.name == action)
      return entry.change;
  return Status::error(
      fmt::format("case_change_action '{}' is none of NONE, LOWER and UPPER", action));
}

int64_t numStopwords(const Node &node) {
  return node.input(kStopwordStarts)->type().numElements().constant() - 1;
}

Status infer(InferContext &ctx) {
  const Shape &x = ctx.inputShape(0);
  if (ctx.inputDType(0) != DType::String)
    return ctx.error("takes strings, not {}", dtypeName(ctx.inputDType(0)));
  if (!(x.size() == 1 || (x.size() == 2 && x[0] == Dim(1))))
    return ctx.error("takes strings of shape [C] or [1, C], not of rank {}{}", x.size(),
                     x.size() == 2 ? " with a first dim other than 1" : "");
  CUVIL_TRY(caseChange(ctx.node()).status());
  if (!ctx.constantInput(kStopwordBytes) || !ctx.constantInput(kStopwordStarts))
    return ctx.error("the stopwords must be constants");
  Shape y = x;
  if (numStopwords(ctx.node()) > 0)
    y.back() = ctx.dataSymbol("count", std::max<int64_t>(1, x.back().max()));
  ctx.setOutput(0, TensorType{DType::String, y});
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  const Value *x = node.input(0), *y = node.output(0);
  ParamBlock<cuvil_string_normalizer_params> params;
  params.set(params->elements, x->type().numElements());
  params->case_change = *caseChange(node);
  params->case_sensitive = node.getInt("is_case_sensitive", 0) != 0;
  params->num_stopwords = numStopwords(node);
  std::string locale = node.getString("locale", "en_US");
  params->ascii_only = locale == "C" || locale == "POSIX";
  std::optional<SymbolId> count = y->type().shape.back().asSymbol();
  return ctx.callKernel(kStringNormalizerKernel,
                        {KernelArg::stringServices(), KernelArg::pointer(x),
                         KernelArg::pointer(node.input(kStopwordBytes)),
                         KernelArg::pointer(node.input(kStopwordStarts)), KernelArg::pointer(y),
                         count ? KernelArg::symbol(*count) : KernelArg::optionalPointer(nullptr),
                         KernelArg::error({"out of memory for {} bytes of strings"}),
                         KernelArg::params(params)},
                        1);
}

} // namespace

extern const OpDefinition kStringNormalizerOp = {OpSchema{"StringNormalizer",
                                                          3,
                                                          3,
                                                          1,
                                                          1,
                                                          {{"case_change_action", AttrKind::String},
                                                           {"is_case_sensitive", AttrKind::Int},
                                                           {"locale", AttrKind::String}},
                                                          infer,
                                                          nullptr},
                                                 lower};

} // namespace cuvil::ops
