// The activation a fused op (cuvil.FusedConv, cuvil.FusedMatMul) applies in
// its epilogue: attribute `activation` names the ONNX op it absorbed,
// `activation_params` holds that op's parameters (Clip bounds, alpha...).
#pragma once

#include "OpSupport.h"

namespace cuvil::ops {

struct FusedActivation {
  cuvil_unary_op code = CUVIL_UNARY_IDENTITY;
  float alpha = 0, beta = 0;
};

// Reads `<prefix>activation` and `<prefix>activation_params` (ops fusing
// several stages name each stage's activation by a prefix).
Expected<FusedActivation> fusedActivation(const Node &node, std::string_view prefix = "");
double applyActivation(const FusedActivation &activation, double x);
// The host reference of any cuvil_unary_op (the kernels' applyUnary).
double unaryReference(int64_t code, double x, double alpha, double beta);

} // namespace cuvil::ops
