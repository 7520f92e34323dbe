#include "FusedActivation.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace cuvil::ops {
namespace {

struct ActivationEntry {
  std::string_view name;
  cuvil_unary_op code;
  size_t params; // how many activation_params it takes
};

constexpr std::array<ActivationEntry, 11> kActivations = {{
    {"", CUVIL_UNARY_IDENTITY, 0},
    {"Relu", CUVIL_UNARY_RELU, 0},
    {"Clip", CUVIL_UNARY_CLIP, 2},
    {"Sigmoid", CUVIL_UNARY_SIGMOID, 0},
    {"Tanh", CUVIL_UNARY_TANH, 0},
    {"LeakyRelu", CUVIL_UNARY_LEAKYRELU, 1},
    {"HardSigmoid", CUVIL_UNARY_HARDSIGMOID, 2},
    {"HardSwish", CUVIL_UNARY_HARDSWISH, 0},
    {"Silu", CUVIL_UNARY_SILU, 0},
    {"Gelu", CUVIL_UNARY_GELU_ERF, 0},
    {"GeluTanh", CUVIL_UNARY_GELU_TANH, 0},
}};

} // namespace

Expected<FusedActivation> fusedActivation(const Node &node, std::string_view prefix) {
  std::string name = node.getString(fmt::format("{}activation", prefix), "");
  std::vector<float> params = node.getFloats(fmt::format("{}activation_params", prefix));
  for (const ActivationEntry &entry : kActivations) {
    if (entry.name != name)
      continue;
    if (params.size() != entry.params)
      return Status::error(fmt::format("activation {} takes {} parameters, got {}", name,
                                       entry.params, params.size()));
    FusedActivation activation{entry.code};
    activation.alpha = params.size() > 0 ? params[0] : 0.0f;
    activation.beta = params.size() > 1 ? params[1] : 0.0f;
    return activation;
  }
  return Status::error(fmt::format("unknown fused activation '{}'", name));
}

double unaryReference(int64_t code, double x, double alpha, double beta) {
  switch (code) {
  case CUVIL_UNARY_RELU:
    return std::max(x, 0.0);
  case CUVIL_UNARY_CLIP:
    return std::min(std::max(x, alpha), beta);
  case CUVIL_UNARY_SIGMOID:
    return 1.0 / (1.0 + std::exp(-x));
  case CUVIL_UNARY_TANH:
    return std::tanh(x);
  case CUVIL_UNARY_GELU_ERF:
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  case CUVIL_UNARY_GELU_TANH:
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  case CUVIL_UNARY_SILU:
    return x / (1.0 + std::exp(-x));
  case CUVIL_UNARY_HARDSWISH:
    return x * std::clamp(x + 3.0, 0.0, 6.0) / 6.0;
  case CUVIL_UNARY_LEAKYRELU:
    return x < 0 ? alpha * x : x;
  case CUVIL_UNARY_NEG:
    return -x;
  case CUVIL_UNARY_ABS:
    return std::fabs(x);
  case CUVIL_UNARY_SQRT:
    return std::sqrt(x);
  case CUVIL_UNARY_EXP:
    return std::exp(x);
  case CUVIL_UNARY_LOG:
    return std::log(x);
  case CUVIL_UNARY_ERF:
    return std::erf(x);
  case CUVIL_UNARY_RECIPROCAL:
    return 1.0 / x;
  case CUVIL_UNARY_FLOOR:
    return std::floor(x);
  case CUVIL_UNARY_CEIL:
    return std::ceil(x);
  case CUVIL_UNARY_SQUARE:
    return x * x;
  case CUVIL_UNARY_HARDSIGMOID:
    return std::clamp(alpha * x + beta, 0.0, 1.0);
  case CUVIL_UNARY_POW:
    return std::pow(x, alpha);
  default:
    return x;
  }
}

double applyActivation(const FusedActivation &a, double x) {
  return unaryReference(a.code, x, a.alpha, a.beta);
}

} // namespace cuvil::ops
