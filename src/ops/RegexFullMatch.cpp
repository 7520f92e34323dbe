// RegexFullMatch (opset 20): y[i] = the whole of string x[i] matches
// `pattern`, a regular expression in RE2's syntax (ONNX Runtime runs it with
// RE2::FullMatch). The compiler turns the pattern into an automaton
// (RegexProgram.cpp), so that a pattern RE2 would refuse is a compile
// error naming the node, and the kernel runs the automaton over each
// string's code points in time linear in its length.
#include "OpSupport.h"
#include "RegexProgram.h"
#include "cuvil/kernels/Regex.h"

namespace cuvil::ops {
namespace {

Expected<RegexProgram> program(const Node &node) {
  const std::string pattern = node.getString("pattern", "");
  Expected<RegexProgram> compiled = compileRegex(pattern);
  if (!compiled)
    return Status::error(fmt::format("pattern '{}': {}", pattern, compiled.status().message()));
  return compiled;
}

Status infer(InferContext &ctx) {
  if (ctx.inputDType(0) != DType::String)
    return ctx.error("takes strings, not {}", dtypeName(ctx.inputDType(0)));
  Expected<RegexProgram> compiled = program(ctx.node());
  if (!compiled)
    return ctx.error("{}", compiled.status().message());
  ctx.setOutput(0, TensorType{DType::Bool, ctx.inputShape(0)});
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  Expected<RegexProgram> compiled = program(node);
  CUVIL_TRY(compiled.status());
  ParamBlock<cuvil_regex_params> params;
  params->states = compiled->numStates();
  params->start = compiled->start;
  // A constant table needs an element to have an address.
  std::vector<uint32_t> ranges = compiled->ranges;
  if (ranges.empty())
    ranges = {1, 0};
  return ctx.callKernel(kRegexFullMatchKernel,
                        {KernelArg::pointer(node.input(0)), KernelArg::table(compiled->states),
                         KernelArg::table(ranges), KernelArg::pointer(node.output(0)),
                         KernelArg::params(params)},
                        node.input(0)->type().numElements());
}

} // namespace

extern const OpDefinition kRegexFullMatchOp = {
    OpSchema{"RegexFullMatch", 1, 1, 1, 1, {{"pattern", AttrKind::String}}, infer, nullptr}, lower};

} // namespace cuvil::ops
