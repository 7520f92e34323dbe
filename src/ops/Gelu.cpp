// Gelu (opset 20): y = 0.5 x (1 + erf(x / sqrt 2)), or with
// approximate = "tanh" 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// Canonicalisation also recognises the Div/Erf/Add/Mul/Mul form exporters
// write for older opsets. Fused kernels take the mode as its one
// parameter: 0 erf, 1 tanh.
#include "Elementwise.h"

#include <cmath>

namespace cuvil::ops {
namespace {

std::optional<std::vector<float>> mode(const Node &node) {
  std::string approximate = node.getString("approximate");
  if (approximate != "none" && approximate != "tanh")
    return std::nullopt;
  return std::vector<float>{approximate == "tanh" ? 1.0f : 0.0f};
}

Status validate(const Node &node) {
  std::string approximate = node.getString("approximate");
  if (approximate != "none" && approximate != "tanh")
    return Status::error(
        fmt::format("approximate must be \"none\" or \"tanh\", not \"{}\"", approximate));
  return Status::success();
}

const UnaryTraits kTraits{
    .name = "Gelu",
    .kernel = CUVIL_UNARY_GELU_ERF,
    .reference = [](double x, std::span<const float> p) -> double {
      if (p[0] != 0)
        return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    },
    .readParams = mode,
    .paramCount = 1,
    .kernelFor = [](std::span<const float> p) -> cuvil_unary {
      return {p[0] != 0 ? CUVIL_UNARY_GELU_TANH : CUVIL_UNARY_GELU_ERF, 0, 0};
    },
    .validate = validate,
    .finiteAtZero = true,
    .extraAttributes = {{"approximate", AttrKind::String, Attribute(std::string("none"))}}};
} // namespace
extern const OpDefinition kGeluOp = UnaryOp<kTraits>::definition();
} // namespace cuvil::ops
