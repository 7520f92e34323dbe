// Mod: the remainder of a / b with numpy broadcasting; with fmod = 0 (the
// default, integers only) it has the divisor's sign like Python's %, with
// fmod = 1 the dividend's like C's fmod (required for floats). By zero: 0.
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {

int64_t pythonMod(int64_t a, int64_t b) {
  if (b == 0 || b == -1)
    return 0;
  int64_t r = a % b;
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

constexpr BinaryTraits kModTraits{
    "Mod", CUVIL_BINARY_MOD, BinaryKind::Arithmetic,
    [](double a, double b) -> double { return a - std::floor(a / b) * b; }, pythonMod};
constexpr BinaryTraits kFmodTraits{
    "Mod", CUVIL_BINARY_FMOD, BinaryKind::Arithmetic,
    [](double a, double b) -> double { return std::fmod(a, b); },
    [](int64_t a, int64_t b) -> int64_t { return b == 0 || b == -1 ? 0 : a % b; }};

const BinaryTraits &traitsOf(const Node &node) {
  return node.getInt("fmod", 0) != 0 ? kFmodTraits : kModTraits;
}

Status infer(InferContext &ctx) {
  CUVIL_TRY(inferBinary(ctx, BinaryKind::Arithmetic));
  if (isFloat(ctx.inputDType(0)) && ctx.node().getInt("fmod", 0) == 0)
    return ctx.error("fmod must be 1 for floating-point inputs");
  return Status::success();
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  return evalBinary(traitsOf(node), in, out);
}

Status lower(const Node &node, LoweringContext &ctx) {
  return lowerBinary(node, ctx, traitsOf(node).code, BinaryKind::Arithmetic);
}

} // namespace

extern const OpDefinition kModOp = {
    OpSchema{"Mod", 2, 2, 1, 1, {{"fmod", AttrKind::Int}}, infer, eval}, lower};

} // namespace cuvil::ops
