// The activation a fused op (cuvil.FusedConv, cuvil.FusedMatMul, the NCHWc
// convolutions) applies in its epilogue: attribute `activation` names the
// unary op it absorbed (an op with ElementwiseFacts, finite at zero),
// `activation_params` holds that op's parameters (ElementwiseFacts::params).
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

struct FusedActivation {
  const OpDefinition *op = nullptr; // null: none
  std::vector<float> params;

  // What the kernel applies (CUVIL_UNARY_IDENTITY for none).
  cuvil_unary kernel() const;
  // The op's reference.
  double apply(double x) const;
};

// Reads `<prefix>activation` and `<prefix>activation_params` (ops fusing
// several stages name each stage's activation by a prefix).
Expected<FusedActivation> fusedActivation(const Node &node, std::string_view prefix = "");

} // namespace cuvil::ops
