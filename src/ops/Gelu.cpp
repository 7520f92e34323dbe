// Gelu (opset 20): y = 0.5 x (1 + erf(x / sqrt 2)), or with
// approximate = "tanh" 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// Canonicalisation also recognises the Div/Erf/Add/Mul/Mul form exporters
// write for older opsets.
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {

bool tanhApproximation(const Node &node) { return node.getString("approximate", "none") == "tanh"; }

double reference(double x, const Node &node) {
  if (tanhApproximation(node))
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

Status validate(InferContext &ctx) {
  std::string mode = ctx.node().getString("approximate", "none");
  if (mode != "none" && mode != "tanh")
    return ctx.error("approximate must be \"none\" or \"tanh\", not \"{}\"", mode);
  return inferFloatElementwise(ctx);
}

Status eval(const Node &node, std::span<const Tensor *const> in, std::span<Tensor> out) {
  for (int64_t i = 0, n = out[0].numElements(); i < n; ++i)
    out[0].setDouble(i, reference(in[0]->getDouble(i), node));
  return Status::success();
}

Status lower(const Node &node, LoweringContext &ctx) {
  return lowerUnary(node, ctx,
                    tanhApproximation(node) ? CUVIL_UNARY_GELU_TANH : CUVIL_UNARY_GELU_ERF, 0, 0);
}

} // namespace

extern const OpDefinition kGeluOp = {
    OpSchema{"Gelu", 1, 1, 1, 1, {{"approximate", AttrKind::String}}, validate, eval}, lower};

} // namespace cuvil::ops
